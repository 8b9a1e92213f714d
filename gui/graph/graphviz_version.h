#pragma once
/// The version of the Graphviz library the graph view lays out with, for the About dialog.
#include <string>

namespace gui::graph {

/// gvcVersion() of a Graphviz context ("2.43.0"), or "unknown" when no context can be made.
std::string graphvizVersion();

} // namespace gui::graph
