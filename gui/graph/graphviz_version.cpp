#include "gui/graph/graphviz_version.h"

#include <gvc.h>

namespace gui::graph {

std::string graphvizVersion()
{
    // A context of its own, made once: the version is the library's, whatever plugins load.
    static const std::string version = [] {
        GVC_t* gvc = gvContext();
        if (!gvc)
            return std::string("unknown");
        const char* v = gvcVersion(gvc);
        std::string out = v && *v ? v : "unknown";
        gvFreeContext(gvc);
        return out;
    }();
    return version;
}

} // namespace gui::graph
