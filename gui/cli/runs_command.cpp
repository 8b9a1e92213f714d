#include "gui/cli/commands.h"

#include <ostream>

namespace gui::cli {

int runsCommand(const std::vector<std::string>&, std::ostream&, std::ostream& err)
{
    err << "aclgraph-inspector runs: not yet implemented\n";
    return 2;
}

} // namespace gui::cli
