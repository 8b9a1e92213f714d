#include "gui/cli/commands.h"

#include <ostream>

namespace gui::cli {

int importCommand(const std::vector<std::string>&, std::ostream&, std::ostream& err)
{
    err << "aclgraph-inspector import: not yet implemented\n";
    return 2;
}

} // namespace gui::cli
