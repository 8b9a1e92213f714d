#pragma once
// What the panel tests share: a view shows what its ProjectSession reads, so a test opens the
// project in a session and selects the item, as the window does when the Project view picks it.
#include "gui/app/project_session.h"

#include <QString>

namespace guitest {

/// Opens `project` in `session` unless it is the one open, and selects `kind` `id` (again, when it
/// was selected already, so that its signals follow).
inline void select(gui::ProjectSession& session, const QString& project, const QString& kind, qlonglong id)
{
    if (session.path() != project || !session.db())
        session.open(project);
    if (session.selection() == gui::ProjectSession::Selection { kind, id })
        session.select(QString(), -1);
    session.select(kind, id);
}

} // namespace guitest
