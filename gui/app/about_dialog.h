#pragma once
/// Help > About: the application's version and the versions of the libraries it runs with (Qt,
/// Graphviz, SQLite), as the process sees them at run time.
#include <QDialog>

namespace gui {

class AboutDialog : public QDialog {
    Q_OBJECT
public:
    /// `version`: the application's version (ACLGI_VERSION where the executable defines it).
    explicit AboutDialog(const QString& version, QWidget* parent = nullptr);

    /// The dialog's text as plain lines: name and version, then "Qt x.y.z", "Graphviz x.y.z",
    /// "SQLite x.y.z".
    QString versionsText() const { return m_versions; }

    static QString qtVersion(); ///< qVersion(), the Qt the process loaded
    static QString graphvizVersion(); ///< gvcVersion()
    static QString sqliteVersion(); ///< sqlite3_libversion()

private:
    QString m_versions;
};

} // namespace gui
