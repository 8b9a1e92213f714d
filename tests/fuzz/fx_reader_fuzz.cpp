// libFuzzer target for the FX readers (scripts/fuzz.sh fx_reader SECONDS). Any input must be read
// without a crash, leak, hang or sanitizer report, an error must name the file and the place; and a graph read from
// readable code must survive writeFxCode + readFxCode with the same nodes, which checks the writer against the reader
// too.
#include "engine/readers/fx_code_writer.h"
#include "engine/readers/fx_reader.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& written)
{
    std::fprintf(stderr, "fx_reader_fuzz: %s\n--- written ---\n%s\n", what.c_str(), written.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace engine;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto any = readers::readFxText(text, "fuzz.py"); !any.ok())
        checkErrorForm("fx_reader_fuzz", any.error(), "fuzz.py");
    // The dump form keeps targets and strings as printed, which need not be Python: its graphs only
    // have to be written without a crash. Graphs from readable code must come back.
    auto dump = readers::readFxGraphDump(text, "fuzz.txt");
    if (!dump.ok())
        checkErrorForm("fx_reader_fuzz", dump.error(), "fuzz.txt");
    else
        for (const Graph& g : dump->graphs)
            (void)readers::readFxCode(readers::writeFxCode(g), "written.py");
    auto r = readers::readFxCode(text, "fuzz.py");
    if (!r.ok()) {
        checkErrorForm("fx_reader_fuzz", r.error(), "fuzz.py");
        return 0;
    }
    for (const Graph& g : r->graphs) {
        const std::string written = readers::writeFxCode(g);
        auto again = readers::readFxCode(written, "written.py");
        if (!again.ok())
            fail("the written graph does not read back: " + again.error().toString(), written);
        if (again->graphs.size() != 1)
            fail("the written graph reads back as " + std::to_string(again->graphs.size()) + " graphs", written);
        const Graph& back = again->graphs[0];
        if (back.nodes.size() != g.nodes.size())
            fail("node count changed: " + std::to_string(g.nodes.size()) + " -> " + std::to_string(back.nodes.size()),
                written);
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            const Node& a = g.nodes[i];
            const Node& b = back.nodes[i];
            if (a.name != b.name || a.op != b.op || a.target != b.target || a.args.size() != b.args.size()
                || a.kwargs.size() != b.kwargs.size() || a.outputs.size() != b.outputs.size())
                fail("node " + std::to_string(i) + " '" + a.name + "' changed", written);
        }
    }
    return 0;
}
