// libFuzzer target for the memory snapshot reader (scripts/fuzz.sh snapshot SECONDS). Any input must
// be read without a crash, leak, hang or sanitizer report; what reads must summarise, label its
// stacks and replay its traces, and every id it holds must point inside the snapshot.
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "snapshot_fuzz: %s\n", what.c_str());
    std::abort();
}

void checkStack(const engine::snapshot::Snapshot& s, engine::snapshot::StackId id)
{
    if (id != engine::snapshot::kNoStack && id >= s.stacks.size())
        fail("a stack id outside the snapshot");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace engine::snapshot;
    auto r = readSnapshot(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pickle");
    if (!r.ok()) {
        checkErrorForm("snapshot_fuzz", r.error(), "fuzz.pickle");
        return 0;
    }
    const Snapshot& s = *r;
    for (const auto& stack : s.stacks)
        for (uint32_t f : stack)
            if (f >= s.frames.size())
                fail("a frame id outside the snapshot");
    for (StackId id = 0; id < s.stacks.size(); ++id)
        (void)describeStack(s, id);
    for (const Segment& seg : s.segments) {
        checkStack(s, seg.stack);
        for (const Block& b : seg.blocks)
            checkStack(s, b.stack);
    }
    for (const auto& trace : s.deviceTraces)
        for (const TraceEntry& e : trace)
            checkStack(s, e.stack);
    for (const PoolSummary& p : summarizePools(s))
        if (p.peakReserved < p.reserved || p.peakAllocated < p.allocated)
            fail("a peak below the final value");
    for (size_t d = 0; d < s.deviceTraces.size() && d < 4; ++d) {
        (void)replayTrace(s, int(d));
        // The bounded replay the import streams, whole and in windows of several entries; a step's
        // state is rebuilt from its keyframe.
        for (size_t steps : { size_t(100000), size_t(3) }) {
            SnapshotRunOptions options;
            options.maxSteps = steps;
            auto run = snapshotAsRun(s, int(d), options);
            if (run.ok() && run->timeline.eventCount() > 0)
                (void)run->timeline.stateAt(run->timeline.eventCount() - 1);
        }
    }
    return 0;
}
