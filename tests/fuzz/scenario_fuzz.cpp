// libFuzzer target for the scenario JSON reader (scripts/fuzz.sh scenario SECONDS): parseScenario on
// any text. Any input must be read without a crash, leak, hang or sanitizer report, and an error
// must name the file and the place (tests/fuzz/error_form_check.h): a JSON path, or line and column
// for JSON that does not parse. Graphs the scenario names by file are looked up relative to the
// working directory, where the fuzzer finds none: that error names the scenario's place too.
#include "engine/scenario/scenario.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto r = engine::scenario::parseScenario(text, "fuzz.json");
    if (!r.ok())
        checkErrorForm("scenario_fuzz", r.error(), "fuzz.json");
    return 0;
}
