// libFuzzer target for the static pickle reader (scripts/fuzz.sh pickle SECONDS). Any input must be
// read without a crash, leak, hang or sanitizer report, and whatever reads must print: repr of the
// root (cut short, through shared and cyclic values), every finding, and getattr-like lookups.
#include "engine/pickle/pickle_reader.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "pickle_fuzz: %s\n", what.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace engine::pickle;
    static const AllowList allow = AllowList::torchair();
    ReadOptions options;
    options.allow = &allow;
    options.limits.maxDepth = 200;
    auto r = readPickle(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pkl", options);
    if (!r.ok()) {
        checkErrorForm("pickle_fuzz", r.error(), "fuzz.pkl");
        return 0;
    }
    const Document& doc = *r;
    if (doc.root >= doc.values.size())
        fail("the root is no value");
    if (doc.depth == 0 || doc.depth > 200)
        fail("depth " + std::to_string(doc.depth) + " outside 1..200");
    const std::string text = repr(doc, doc.root, 256);
    if (text.size() > 256 + 3)
        fail("repr is " + std::to_string(text.size()) + " characters");
    for (const Finding& f : doc.findings) {
        (void)f.label();
        if (f.value >= doc.values.size())
            fail("a finding names no value");
    }
    // Every child id is a value; objects answer field() and className().
    for (uint32_t id = 0; id < doc.values.size(); ++id) {
        for (uint32_t child : doc.items(id))
            if (child != kNoValue && child >= doc.values.size())
                fail("value " + std::to_string(id) + " has a child outside the document");
        if (doc.at(id).kind == Kind::Object) {
            (void)field(doc, id, "meta");
            (void)className(doc, id);
        }
        if (doc.at(id).kind == Kind::BigInt)
            (void)bigIntDecimal(doc, id, 200);
    }
    return 0;
}
