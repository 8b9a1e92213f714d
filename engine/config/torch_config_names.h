#pragma once
/// Internal to engine/config: which attribute names PyTorch 2.11's config modules have, so that
/// cuda_options.cpp can tell a name PyTorch lacks (AttributeError / "Unexpected optimization option")
/// from a real PyTorch option the simulator does not take. Not part of the engine's interface.
#include <string>

namespace engine::config::detail {

/// `key` is an option of torch._inductor.config in the form torch.compile's options= takes it
/// ("triton.cudagraphs", "graph_partition").
bool inductorConfigHas(const std::string& key);
/// `prefix` names a group of torch._inductor.config ("triton", "aot_inductor").
bool inductorConfigHasGroup(const std::string& prefix);
/// `key` is an option (or an alias of one) of torch._dynamo.config ("recompile_limit", "cache_size_limit").
bool dynamoConfigHas(const std::string& key);

} // namespace engine::config::detail
