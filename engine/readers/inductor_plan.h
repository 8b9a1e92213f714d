#pragma once
/// The memory plan of Inductor's output code, once read (inductor_code.cpp): the steps in the order
/// they run, the summary, and the plan as a graph. Internal to the readers.
#include "engine/readers/inductor_code.h"

#include <optional>
#include <string>
#include <vector>

namespace engine::readers::inductor::detail {

/// The plan's steps as they run: the entry function's, with each partition it calls inlined once;
/// every step in file order when there is no entry.
std::vector<const PlanStep*> executionOrder(const OutputCode& code);
/// Fills code.summary from the plan: counts, bytes allocated, the peak and its line, outputs.
void summarizePlan(OutputCode& code);
/// Sets code.graph to the plan as a graph (placeholders, one node per allocation, launch and extern
/// call); returns why it could not be made, if so.
std::optional<std::string> buildPlanGraph(OutputCode& code);

} // namespace engine::readers::inductor::detail
