#pragma once
// A project holding one bundled sample imported with its run (ImportOptions::simulateScenarios):
// the sample is copied into `dir` first, so a test may move or delete it. For the tests of panels
// that re-simulate or compare stored runs.
#include "storage/importer.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

/// Fills `project` with the path of the new project; fails the calling test function otherwise.
inline void importSampleWithRun(const QTemporaryDir& dir, const char* sample, QString& project)
{
    const QString scenario = dir.filePath(sample);
    QVERIFY(QFile::copy(QString(ACLGI_SOURCE_DIR "/resources/samples/") + sample, scenario));
    project = dir.filePath("p.aclgi");
    storage::ImportOptions options;
    options.simulateScenarios = true;
    auto imported = storage::importPaths(project.toStdString(), { scenario.toStdString() }, options);
    QVERIFY(imported.ok());
    QCOMPARE((*imported)[0].runs, 1);
}
