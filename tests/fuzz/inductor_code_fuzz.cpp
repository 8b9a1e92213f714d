// libFuzzer target for the readers of Inductor's Python files (scripts/fuzz.sh inductor_code
// SECONDS): readInductorOutputCode (output_code.py) and readFxRunnable (fx_graph_runnable.py). Any
// input must be read without a crash, leak, hang or sanitizer report, an error must name the file and the place, and
// what is read must hold together: the summary counts the plan's steps, the peak never exceeds what was allocated, and
// a graph, when there is one, finalizes again.
#include "engine/readers/fx_runnable.h"
#include "engine/readers/inductor_code.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "inductor_code_fuzz: %s\n", what.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace engine;
    using namespace engine::readers;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)inductor::looksLikeInductorOutputCode(text.substr(0, 4096));
    (void)looksLikeFxRunnable(text.substr(0, 4096));
    if (auto r = inductor::readInductorOutputCode(text, "fuzz.py"); !r.ok()) {
        checkErrorForm("inductor_code_fuzz", r.error(), "fuzz.py");
    } else {
        const inductor::OutputCode& c = r.value();
        size_t allocs = 0, launches = 0;
        for (const inductor::PlanStep& s : c.plan) {
            allocs += s.kind == inductor::PlanStep::Kind::Alloc;
            launches += s.kind == inductor::PlanStep::Kind::Launch;
            if (s.kind == inductor::PlanStep::Kind::Alloc && !s.meta)
                fail("an allocation without metadata");
        }
        // The summary walks the execution order, which may leave out steps of functions that are
        // never called: never more than the file holds.
        if (c.summary.allocations > allocs || c.summary.launches > launches)
            fail("the summary counts more steps than the plan has");
        if (c.summary.peakBytes > c.summary.allocatedBytes)
            fail("peak " + std::to_string(c.summary.peakBytes) + " above the allocated "
                + std::to_string(c.summary.allocatedBytes));
        if (c.summary.kernels != c.kernels.size())
            fail("kernel count differs");
        if (c.graph) {
            Graph g = *c.graph;
            if (!g.finalize().ok())
                fail("the plan's graph does not finalize again");
        }
    }
    auto runnable = readFxRunnable(text, "fuzz_runnable.py");
    if (!runnable.ok())
        checkErrorForm("inductor_code_fuzz", runnable.error(), "fuzz_runnable.py");
    else if (runnable->graph) {
        Graph g = *runnable->graph;
        if (!g.finalize().ok())
            fail("the runnable's graph does not finalize again");
    }
    return 0;
}
