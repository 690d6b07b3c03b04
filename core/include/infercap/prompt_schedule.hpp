// How an engine schedules prompts into its steps: one enum shared by the serving model
// (ServingConfig) and the stacks that name their engine's default (StackSpec).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace infercap {

/// How an engine schedules prompts into its steps.
enum class PromptSchedule : unsigned char {
  /// Prompts split across steps and fused with decodes, within the token budget (vLLM's chunked
  /// prefill, TensorRT-LLM's chunked context).
  chunked,
  /// Prefill first: while prompts wait and fit, a step of whole prompts only, run before any
  /// decode (vLLM v0 without chunking; SGLang's default scheduler, whose prefill batch takes up
  /// to chunked_prefill_size tokens and whose decode batch runs only when no prompt is
  /// admitted). A sequence (prompt + output) must fit one step's budget: vLLM v0 requires it;
  /// SGLang would chunk a longer prompt over several prefill steps, which is not modelled.
  whole_prompt_steps,
  /// TensorRT-LLM's in-flight batching without chunked context (its default): every running
  /// decode first, then waiting prompts in arrival order, each whole, in the same step while the
  /// token budget holds it; the first that does not fit waits, and those behind it too
  /// (MicroBatchScheduler: `break`). Only the prompt must fit the budget.
  whole_with_decodes,
};

/// The spellings of PromptSchedule in stack files (`prompt_schedule:`), in enum order.
inline constexpr std::array<std::string_view, 3> kPromptScheduleNames{
    "chunked", "whole_prompt_steps", "whole_with_decodes"};
inline std::string_view prompt_schedule_name(PromptSchedule s) {
  return kPromptScheduleNames[static_cast<size_t>(s)];
}

}  // namespace infercap
