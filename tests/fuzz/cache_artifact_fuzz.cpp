// libFuzzer target for a whole compile-cache file (scripts/fuzz.sh cache_artifact SECONDS): the
// pickle, the artifact's fields, compiled_fn through the marshal reader and disassembler, py_code
// through the generated-module and FX readers, the readable_cache text and the JSON report. Any
// input must be read without a crash, leak, hang or sanitizer report; errors name the file and the place
// (tests/fuzz/error_form_check.h).
#include "engine/cache/cache_checks.h"
#include "engine/report/cache_report.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace engine::cache;
    ReadOptions options;
    options.limits.maxDepth = 200;
    auto r = readCacheArtifact(std::string_view(reinterpret_cast<const char*>(data), size), "compiled_module", options);
    if (!r.ok()) {
        checkErrorForm("cache_artifact_fuzz", r.error(), "compiled_module");
        return 0;
    }
    const CacheArtifact& a = r.value();
    (void)refusedClasses(a, engine::config::Backend::TorchAir);
    (void)refusedClasses(a, engine::config::Backend::NpugraphEx);
    (void)readableText(a);
    (void)readableFileText(a);
    CacheFileReport report;
    report.path = "compiled_module";
    report.artifact = a;
    (void)engine::report::cacheFileJson(report, -1);
    (void)engine::report::cacheFileText(report);
    return 0;
}
