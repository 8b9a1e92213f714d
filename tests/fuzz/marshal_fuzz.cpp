// libFuzzer target for the static marshal reader and the disassembler (scripts/fuzz.sh marshal
// SECONDS). Any input must be read without a crash, leak, hang or sanitizer report; whatever reads
// must print: repr of the root (cut short, through shared and cyclic values), the version guess,
// and the dis listing and instructions under every version of the data's code layout.
#include "engine/marshal/disassembler.h"
#include "tests/fuzz/error_form_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "marshal_fuzz: %s\n", what.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace engine::marshal;
    Limits limits;
    limits.maxDepth = 200;
    auto r = readMarshal(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.marshal", limits);
    if (!r.ok()) {
        checkErrorForm("marshal_fuzz", r.error(), "fuzz.marshal");
        return 0;
    }
    const Document& doc = *r;
    if (doc.root >= doc.values.size())
        fail("the root is no value");
    for (uint32_t id = 0; id < doc.values.size(); ++id) {
        const Value& v = doc.values[id];
        for (uint32_t child : v.items)
            if (child >= doc.values.size())
                fail("value " + std::to_string(id) + " has a child outside the document");
        if (v.kind == Kind::Code && v.code >= doc.codes.size())
            fail("value " + std::to_string(id) + " names no code object");
        if (v.kind == Kind::Null)
            fail("a NULL value in the document");
    }
    const std::string text = repr(doc, doc.root, 256);
    if (text.size() > 256 + 3)
        fail("repr is " + std::to_string(text.size()) + " characters");
    for (const Code& c : doc.codes) {
        (void)c.argumentNames();
        for (uint32_t k : c.nested)
            if (k >= doc.codes.size())
                fail("a nested code object outside the document");
    }
    const VersionGuess guess = guessVersion(doc);
    if (doc.hasCode && guess.candidates.empty())
        fail("code objects but no version candidate");
    for (const PyVersion& v : supportedVersions()) {
        if ((v.minor >= 11) != (doc.layout == CodeLayout::Py311))
            continue;
        auto listing = disListing(doc, v);
        if (listing.ok() && doc.rootCode() && doc.rootCode()->bytecode.size() >= 2 && listing->empty())
            fail("an empty listing of " + v.text());
        for (uint32_t k = 0; k < doc.codes.size(); ++k) {
            auto instructions = disassemble(doc, k, v);
            if (!instructions.ok())
                fail("disassemble failed: " + instructions.error().toString());
            for (const Instruction& in : *instructions)
                if (in.offset >= doc.codes[k].bytecode.size())
                    fail("an instruction past the end of co_code");
        }
    }
    return 0;
}
