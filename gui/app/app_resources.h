#pragma once
/// The Qt resources compiled into gui_app (gui/app/resources.qrc): `:/icons/aclgraph-inspector.svg`
/// and `:/aclgraph-inspector.desktop`.
#include <QIcon>

namespace gui {

/// Registers the resources (once; later calls do nothing). gui_app is a static library, so the
/// executable must call this (or make an AboutDialog) before it opens a `:/` path.
void initResources();

/// The application icon, `:/icons/aclgraph-inspector.svg` (initResources() included).
QIcon appIcon();

} // namespace gui
