#pragma once
/// The Help menu's pages (issue 21): every key of the window in one table, and what each view
/// shows. Both are plain HTML built here (shortcutsHtml, viewsGuideHtml), shown in a small dialog;
/// the tables are written from the keys the code binds (main_window.cpp's addDock and buildStepMenu,
/// main_window_project.cpp's File and Graph menus, runtime_panel.cpp's QShortcuts, memory_chart.cpp
/// and gui/graph/graph_canvas.cpp's key and mouse handling): a key added there is added here.
#include <QString>

class QWidget;

namespace gui {

/// A table of key -> action, grouped by where the key works.
QString shortcutsHtml();
/// Two or three lines per view: Graph, Project, Runtime, Memory, Inspector, Config, Compare, Log,
/// Passes, Cache, Compiles, Events.
QString viewsGuideHtml();

void showShortcuts(QWidget* parent);
void showViewsGuide(QWidget* parent);

/// The local path of a document shipped with the app ("guide.md", "README.md"): beside the
/// executable's installed docs (PREFIX/share/doc/aclgraph-inspector), else in the source tree the
/// build came from. Empty when neither has it.
QString docPath(const QString& name);

} // namespace gui
