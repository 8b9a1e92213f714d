#include "gui/app/app_resources.h"

// Q_INIT_RESOURCE may not be used inside a namespace.
static void registerAppResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace gui {

void initResources()
{
    static const bool done = [] {
        registerAppResources();
        return true;
    }();
    (void)done;
}

QIcon appIcon()
{
    initResources();
    return QIcon(":/icons/aclgraph-inspector.svg");
}

} // namespace gui
