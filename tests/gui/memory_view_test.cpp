// The Memory view on a recording (issue 18): blocks coloured by what their owner is (the snapshot
// story's categories: graph tensor, autotuning, library workspace, ...), a legend of the categories
// the recording has, and on hover the owner's evidence and whole stack, as memory_viz shows it.
#include "gui/app/memory_breakdown.h"
#include "gui/app/memory_view.h"
#include "tests/gui/screenshot.h"

#include <QHelpEvent>
#include <QToolTip>
#include <QtTest>

class MemoryViewTest : public QObject {
    Q_OBJECT
private slots:
    void recordedBlocksAreColouredByCategory();
    void hoverShowsEvidenceAndTheWholeStack();
    void simulatedRunsKeepTheOwnerKinds();
    void breakdownByCategoryOwnerAndSite();
    void colourPerOwnerSiteOrAllocation();
    void frameFilterKeepsMatchingOwnersAndMarksTheirBlocks();
};

namespace {
constexpr uint64_t MiB = 1 << 20;

std::shared_ptr<engine::runtime::Simulation> recording()
{
    auto sim = std::make_shared<engine::runtime::Simulation>();
    sim->origin.kind = engine::runtime::RunOriginKind::Recorded;
    engine::runtime::OwnerInfo tensor;
    tensor.kind = engine::runtime::OwnerKind::Recorded;
    tensor.graph = "compile 0/1 recording 1";
    tensor.tensor = "model.py:42 forward";
    tensor.category = "graph tensor";
    tensor.evidence = "allocated under cudagraph_trees.py record_function";
    for (int i = 0; i < 30; ++i)
        tensor.stack += "frame_" + std::to_string(i) + ".py:" + std::to_string(i) + " f\n";
    engine::runtime::OwnerInfo tuning = tensor;
    tuning.graph = "";
    tuning.category = "autotuning";
    tuning.stack = "benchmarking.py:90 benchmark_gpu\n";
    sim->owners = { tensor, tuning };
    return sim;
}

std::shared_ptr<std::vector<engine::runtime::PoolSnapshot>> memory()
{
    engine::runtime::PoolSnapshot pool;
    pool.pool = { 0, 1 };
    engine::memory::SegmentInfo seg;
    seg.pool = pool.pool;
    seg.address = 0x7f0000000000;
    seg.totalSize = 20 * MiB;
    seg.blocks = { { seg.address, 8 * MiB, 8 * MiB, true, 0 }, { seg.address + 8 * MiB, 8 * MiB, 8 * MiB, true, 1 },
        { seg.address + 16 * MiB, 4 * MiB, 0, false, engine::memory::kNoOwner } };
    pool.segments = { seg };
    pool.reserved = 20 * MiB;
    pool.allocated = 16 * MiB;
    return std::make_shared<std::vector<engine::runtime::PoolSnapshot>>(std::vector { pool });
}

QColor colourAt(gui::MemoryView& view, const QRect& r)
{
    // A corner, not the centre: the owner's name is written across the middle of a wide block.
    return view.grab().toImage().pixelColor(r.topLeft() + QPoint(2, 1));
}
} // namespace

void MemoryViewTest::recordedBlocksAreColouredByCategory()
{
    gui::MemoryView view;
    view.resize(900, 300);
    view.setSimulation(recording());
    view.setMemory(0, memory());
    view.show();
    QCOMPARE(colourAt(view, view.blockRect(0, 0, 0)), gui::recordedCategoryColor("graph tensor"));
    QCOMPARE(colourAt(view, view.blockRect(0, 0, 1)), gui::recordedCategoryColor("autotuning"));
    QVERIFY(gui::recordedCategoryColor("graph tensor") != gui::recordedCategoryColor("autotuning"));
    screenshot(view, "memory_view_recorded.png");
}

void MemoryViewTest::hoverShowsEvidenceAndTheWholeStack()
{
    gui::MemoryView view;
    view.resize(900, 300);
    view.setSimulation(recording());
    view.setMemory(0, memory());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint at = view.blockRect(0, 0, 0).center();
    QHelpEvent help(QEvent::ToolTip, at, view.mapToGlobal(at));
    QApplication::sendEvent(&view, &help);
    const QString text = QToolTip::text();
    QVERIFY2(text.contains("graph tensor"), qPrintable(text));
    QVERIFY2(text.contains("record_function"), qPrintable(text)); // the evidence
    QVERIFY2(text.contains("frame_0.py:0 f") && text.contains("frame_23.py:23 f"), qPrintable(text));
    QVERIFY2(!text.contains("frame_24.py") && text.contains("6 more"), qPrintable(text));
}

void MemoryViewTest::simulatedRunsKeepTheOwnerKinds()
{
    auto sim = std::make_shared<engine::runtime::Simulation>();
    engine::runtime::OwnerInfo out;
    out.kind = engine::runtime::OwnerKind::Output;
    sim->owners = { out, out };
    gui::MemoryView view;
    view.resize(900, 300);
    view.setSimulation(sim);
    view.setMemory(0, memory());
    view.show();
    QCOMPARE(colourAt(view, view.blockRect(0, 0, 0)), gui::ownerKindColor(engine::runtime::OwnerKind::Output));
}

void MemoryViewTest::breakdownByCategoryOwnerAndSite()
{
    gui::MemoryBreakdown b;
    b.setSimulation(recording());
    b.setMemory(memory());
    // Two 8 MiB blocks, one graph tensor and one autotuning buffer; the free 4 MiB counts for none.
    QCOMPARE(b.rows().size(), size_t(2));
    QCOMPARE(b.total(), 16 * MiB);
    QCOMPARE(b.rows()[0].bytes, 8 * MiB);
    QCOMPARE(b.rows()[0].name, QString("autotuning")); // equal bytes: by name
    QCOMPARE(b.rows()[1].name, QString("graph tensor"));
    b.setGroupBy(gui::MemoryBreakdown::GroupBy::Owner);
    QCOMPARE(b.rows().size(), size_t(2));
    QVERIFY(b.rows()[0].name == "compile 0/1 recording 1" || b.rows()[1].name == "compile 0/1 recording 1");
    b.setGroupBy(gui::MemoryBreakdown::GroupBy::Site);
    QCOMPARE(b.rows().size(), size_t(1)); // both made at model.py:42 forward
    QCOMPARE(b.rows()[0].bytes, 16 * MiB);
    QCOMPARE(b.rows()[0].blocks, 2);
}

void MemoryViewTest::colourPerOwnerSiteOrAllocation()
{
    gui::MemoryView view;
    view.resize(900, 300);
    view.setSimulation(recording());
    view.setMemory(0, memory());
    view.show();
    const QRect a = view.blockRect(0, 0, 0), b = view.blockRect(0, 0, 1);
    // Two owners (a recording and an autotuning buffer): two colours, none of them a category's.
    view.setColourBy(gui::MemoryView::ColourBy::Owner);
    QVERIFY(colourAt(view, a) != colourAt(view, b));
    QVERIFY(colourAt(view, a) != gui::recordedCategoryColor("graph tensor"));
    // One site (both made at model.py:42): one colour.
    view.setColourBy(gui::MemoryView::ColourBy::Site);
    QCOMPARE(colourAt(view, a), colourAt(view, b));
    // Two allocations: two colours.
    view.setColourBy(gui::MemoryView::ColourBy::Allocation);
    QVERIFY(colourAt(view, a) != colourAt(view, b));
    view.setColourBy(gui::MemoryView::ColourBy::Category);
    QCOMPARE(colourAt(view, a), gui::recordedCategoryColor("graph tensor"));
}

void MemoryViewTest::frameFilterKeepsMatchingOwnersAndMarksTheirBlocks()
{
    gui::MemoryView view;
    view.resize(900, 300);
    view.setSimulation(recording());
    view.setMemory(0, memory());
    gui::MemoryBreakdown b;
    QObject::connect(&b, &gui::MemoryBreakdown::filterChanged, &view, &gui::MemoryView::setHighlight);
    b.setSimulation(recording());
    b.setMemory(memory());
    b.setFilter("BENCHMARKING.py"); // case-insensitive, in the stack
    QCOMPARE(b.rows().size(), size_t(1));
    QCOMPARE(b.rows()[0].name, QString("autotuning"));
    QCOMPARE(b.total(), 8 * MiB);
    QCOMPARE(view.highlight(), QString("BENCHMARKING.py"));
    view.show();
    // The graph tensor's block is faded, the autotuning block keeps its colour.
    QVERIFY(colourAt(view, view.blockRect(0, 0, 0)) != gui::recordedCategoryColor("graph tensor"));
    QCOMPARE(colourAt(view, view.blockRect(0, 0, 1)).rgb(), QColor(0x10, 0x10, 0x10).rgb()); // its outline
    b.setFilter("");
    QCOMPARE(view.highlight(), QString());
    QCOMPARE(colourAt(view, view.blockRect(0, 0, 0)), gui::recordedCategoryColor("graph tensor"));
}

QTEST_MAIN(MemoryViewTest)
#include "memory_view_test.moc"
