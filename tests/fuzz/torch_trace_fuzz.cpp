// libFuzzer target for the TORCH_TRACE reader (scripts/fuzz.sh torch_trace SECONDS). The reader works
// on a path, so each input is written to one temporary file of this process first. Any input must be
// read without a crash, leak, hang or sanitizer report; an error must name the file; what reads must
// keep its payloads within maxPayloadBytes, hold each compile id once and end no span before it began.
#include "engine/readers/torch_trace.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

namespace {

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "torch_trace_fuzz: %s\n", what.c_str());
    std::abort();
}

// The input's file, removed when the process ends.
struct TempFile {
    std::string path
        = (std::filesystem::temp_directory_path() / ("aclgi_torch_trace_fuzz_" + std::to_string(::getpid()) + ".log"))
              .string();
    ~TempFile()
    {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

constexpr uint64_t kMaxPayload = 4096;

void checkPayload(const engine::readers::trace::TracePayload& p)
{
    if (p.text.size() > kMaxPayload)
        fail("a payload longer than maxPayloadBytes");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace engine::readers::trace;
    static TempFile file;
    {
        std::ofstream out(file.path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
        if (!out)
            fail("cannot write " + file.path);
    }
    TraceReadOptions options;
    options.maxPayloadBytes = kMaxPayload;
    auto r = readTorchTrace(file.path, options);
    if (!r.ok()) {
        checkErrorForm("torch_trace_fuzz", r.error(), file.path);
        return 0;
    }
    const TorchTrace& t = *r;
    if (t.bytes != size)
        fail("bytes read differ from the file size");
    std::set<std::string> ids;
    for (const TraceCompile& c : t.compiles) {
        if (!c.id.valid())
            fail("a compile without a compile id");
        if (!ids.insert(c.id.text()).second)
            fail("compile id listed twice: " + c.id.text());
        if (t.find(c.id) != &c)
            fail("find() does not return the compile");
        for (const TracePayload& p : c.graphs)
            checkPayload(p);
        for (const TracePayload& p : c.artifacts)
            checkPayload(p);
        if (c.outputCode)
            checkPayload(*c.outputCode);
        for (const TraceSpan& s : c.spans)
            if (s.endUs < s.startUs && s.ended)
                fail("a span that ends before it begins");
    }
    if (t.diagnostics.size() > 1001)
        fail("diagnostics are not bounded");
    (void)looksLikeTorchTrace(std::string(reinterpret_cast<const char*>(data), size));
    return 0;
}
