// The static marshal reader and our disassembler: fixtures of CPython 3.8-3.13 made by
// tests/data/marshal/make_marshal_fixtures.py (each interpreter's own marshal.dumps and dis.dis),
// the interpreters' opcode tables, hand-made values and code objects, and broken and hostile input.
#include "engine/marshal/disassembler.h"
#include "engine/marshal/marshal_reader.h"
#include "engine/marshal/opcode_tables.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace {

using namespace engine::marshal;

const std::string kDir = std::string(ACLGI_TEST_DATA_DIR) + "/marshal/";
const char* const kCases[] = { "compiled_fn", "resume_fn", "method", "closure", "control", "constants", "chain" };

std::string fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// "py311" for 3.11.
std::string tagOf(PyVersion v)
{
    return "py" + std::to_string(v.major) + std::to_string(v.minor);
}

/// Addresses of code objects differ from run to run (and ours are made up).
std::string withoutAddresses(const std::string& text)
{
    static const std::regex address("at 0x[0-9a-f]+");
    return std::regex_replace(text, address, "at 0x...");
}

/// The fixtures of one version: case name -> file stem ("closure.py311"); chain exists for 3.11+.
std::vector<std::string> fixturesOf(PyVersion v)
{
    std::vector<std::string> out;
    for (const char* c : kCases)
        if (std::filesystem::exists(kDir + c + "." + tagOf(v) + ".marshal"))
            out.push_back(std::string(c) + "." + tagOf(v));
    return out;
}

Document readOk(const std::string& file)
{
    auto r = readMarshalFile(kDir + file);
    EXPECT_TRUE(r.ok()) << file << ": " << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : Document {};
}

/// The error text of reading `bytes`, or "ok".
std::string errorOf(const std::string& bytes, const Limits& limits = {})
{
    auto r = readMarshal(bytes, "compiled_fn", limits);
    return r.ok() ? "ok" : r.error().toString();
}

Document readBytes(const std::string& bytes)
{
    auto r = readMarshal(bytes, "test.marshal");
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : Document {};
}

std::string reprOf(const std::string& bytes)
{
    const Document doc = readBytes(bytes);
    return doc.root == kNone ? "<error>" : repr(doc, doc.root, 100000);
}

/// Marshal data written by hand.
struct W {
    std::string b;
    W& raw(const std::string& s)
    {
        b += s;
        return *this;
    }
    W& byte(int c)
    {
        b += char(c);
        return *this;
    }
    W& i32(int64_t v)
    {
        for (int k = 0; k < 4; ++k)
            b += char((uint64_t(v) >> (8 * k)) & 0xFF);
        return *this;
    }
    /// TYPE_STRING / TYPE_UNICODE / TYPE_ASCII ...: a type byte, an int32 size, the bytes.
    W& str(int type, const std::string& s) { return byte(type).i32(int64_t(s.size())).raw(s); }
    W& shortStr(int type, const std::string& s) { return byte(type).byte(int(s.size())).raw(s); }
    W& smallTuple(size_t n) { return byte(')').byte(int(n)); }
    W& names(const std::vector<std::string>& v)
    {
        smallTuple(v.size());
        for (const std::string& s : v)
            shortStr('z', s);
        return *this;
    }
};

/// A 3.8-3.10 code object: f(a) with the given bytecode, consts (marshalled) and names.
W code38(const std::string& bytecode, const std::string& consts, const std::vector<std::string>& names,
    const std::string& lnotab = "", int firstLine = 1)
{
    W w;
    w.byte('c').i32(1).i32(0).i32(0).i32(1).i32(2).i32(0x43);
    w.str('s', bytecode).raw(consts).names(names).names({ "a" }).names({}).names({});
    w.shortStr('z', "model.py").shortStr('z', "f").i32(firstLine).str('s', lnotab);
    return w;
}

/// A 3.11+ code object: f(a) with the given bytecode, consts, names and tables.
W code311(const std::string& bytecode, const std::string& consts, const std::vector<std::string>& names,
    const std::string& lineTable, const std::string& exceptionTable = "")
{
    W w;
    w.byte('c').i32(1).i32(0).i32(0).i32(2).i32(3);
    w.str('s', bytecode).raw(consts).names(names).names({ "a" }).str('s', std::string(1, '\x20'));
    w.shortStr('z', "model.py").shortStr('z', "f").shortStr('z', "f").i32(1);
    w.str('s', lineTable).str('s', exceptionTable);
    return w;
}

std::string consts(std::initializer_list<int> ints)
{
    W w;
    w.smallTuple(ints.size());
    for (int i : ints)
        w.byte('i').i32(i);
    return w.b;
}

std::string bytesOf(std::initializer_list<int> v)
{
    std::string s;
    for (int c : v)
        s += char(c);
    return s;
}

std::string listing(const std::string& bytes, PyVersion v)
{
    const Document doc = readBytes(bytes);
    auto r = disListing(doc, v);
    return r.ok() ? *r : "error: " + r.error().toString();
}

} // namespace

TEST(MarshalReader, FixturesOfEveryVersionReadWithTheirFields)
{
    size_t fixtures = 0;
    for (const PyVersion& v : supportedVersions()) {
        SCOPED_TRACE(v.text());
        const auto fields = nlohmann::json::parse(fileBytes(kDir + "fields." + tagOf(v) + ".json"));
        for (const std::string& stem : fixturesOf(v)) {
            SCOPED_TRACE(stem);
            ++fixtures;
            const Document doc = readOk(stem + ".marshal");
            ASSERT_TRUE(doc.hasCode);
            EXPECT_EQ(doc.layout, v.minor >= 11 ? CodeLayout::Py311 : CodeLayout::Py38);
            EXPECT_TRUE(doc.warnings.empty());
            const Code* root = doc.rootCode();
            ASSERT_NE(root, nullptr);
            const auto& all = fields.at(stem.substr(0, stem.find('.')));
            const auto& f = all.at(0);
            EXPECT_EQ(root->name, f.at("name").get<std::string>());
            EXPECT_EQ(root->qualname, f.at("qualname").get<std::string>());
            EXPECT_EQ(root->filename, f.at("filename").get<std::string>());
            EXPECT_EQ(root->firstLineNo, f.at("firstlineno").get<int>());
            const std::vector<int> counts { root->argCount, root->posOnlyArgCount, root->kwOnlyArgCount, root->nLocals,
                root->stackSize, int(root->flags) };
            EXPECT_EQ(counts, f.at("counts").get<std::vector<int>>());
            EXPECT_EQ(root->names, f.at("names").get<std::vector<std::string>>());
            EXPECT_EQ(root->varNames, f.at("varnames").get<std::vector<std::string>>());
            EXPECT_EQ(root->cellVars, f.at("cellvars").get<std::vector<std::string>>());
            EXPECT_EQ(root->freeVars, f.at("freevars").get<std::vector<std::string>>());
            EXPECT_EQ(root->argumentNames(), f.at("arguments").get<std::vector<std::string>>());
            std::vector<std::string> constReprs;
            for (uint32_t id : root->consts)
                constReprs.push_back(withoutAddresses(repr(doc, id)));
            std::vector<std::string> expected;
            for (const auto& c : f.at("consts"))
                expected.push_back(withoutAddresses(c.get<std::string>()));
            EXPECT_EQ(constReprs, expected);
            // Nested code objects, in the order dis prints them.
            std::vector<const Code*> nested;
            std::function<void(const Code&)> walk = [&](const Code& c) {
                for (uint32_t k : c.nested) {
                    nested.push_back(&doc.codes[k]);
                    walk(doc.codes[k]);
                }
            };
            walk(*root);
            ASSERT_EQ(nested.size() + 1, all.size());
            for (size_t k = 0; k < nested.size(); ++k) {
                const auto& n = all.at(k + 1);
                EXPECT_EQ(nested[k]->name, n.at("name").get<std::string>());
                EXPECT_EQ(nested[k]->qualname, n.at("qualname").get<std::string>());
                EXPECT_EQ(nested[k]->firstLineNo, n.at("firstlineno").get<int>());
                EXPECT_EQ(nested[k]->argumentNames(), n.at("arguments").get<std::vector<std::string>>());
            }
        }
    }
    EXPECT_EQ(fixtures, 6u * 6 + 3); // chain: 3.11+
}

TEST(MarshalDisassembler, ListingEqualsDisOfEveryVersion)
{
    for (const PyVersion& v : supportedVersions()) {
        for (const std::string& stem : fixturesOf(v)) {
            SCOPED_TRACE(stem);
            const Document doc = readOk(stem + ".marshal");
            auto listing = disListing(doc, v);
            ASSERT_TRUE(listing.ok()) << listing.error().toString();
            EXPECT_EQ(withoutAddresses(*listing), withoutAddresses(fileBytes(kDir + stem + ".dis")));
        }
    }
}

TEST(MarshalDisassembler, GuessContainsTheTrueVersion)
{
    for (const PyVersion& v : supportedVersions()) {
        for (const std::string& stem : fixturesOf(v)) {
            SCOPED_TRACE(stem);
            const Document doc = readOk(stem + ".marshal");
            const VersionGuess g = guessVersion(doc);
            EXPECT_NE(std::find(g.candidates.begin(), g.candidates.end(), v), g.candidates.end()) << g.reason;
            EXPECT_NE(g.reason.find("reads cleanly as"), std::string::npos) << g.reason;
            for (const PyVersion& c : g.candidates)
                EXPECT_EQ(c.minor >= 11, v.minor >= 11) << g.reason;
            // Dynamo's typical code has version-specific opcodes (IS_OP, PRECALL, RETURN_CONST, ...).
            if (stem.rfind("compiled_fn", 0) == 0) {
                EXPECT_EQ(g.candidates, std::vector<PyVersion> { v }) << g.reason;
            }
        }
    }
    // Identical bytecode in 3.8 and 3.9: both fit, the newer first.
    const VersionGuess both = guessVersion(readOk("resume_fn.py38.marshal"));
    EXPECT_EQ(both.candidates, (std::vector<PyVersion> { { 3, 9 }, { 3, 8 } })) << both.reason;
    EXPECT_EQ(guessVersion(readBytes("N")).candidates.size(), 0u);
}

TEST(MarshalDisassembler, OpcodeTablesMatchTheInterpreters)
{
    for (const PyVersion& v : supportedVersions()) {
        SCOPED_TRACE(v.text());
        const detail::OpTable* table = detail::opTable(v);
        ASSERT_NE(table, nullptr);
        std::istringstream in(fileBytes(kDir + "opcodes." + tagOf(v) + ".txt"));
        std::vector<std::string> expectedNames(256);
        size_t rows = 0;
        for (std::string line; std::getline(in, line);) {
            std::istringstream row(line);
            int op, hasArg, caches;
            std::string name, lists;
            ASSERT_TRUE(bool(row >> op >> name >> hasArg >> caches >> lists)) << line;
            ++rows;
            expectedNames[size_t(op)] = name;
            const detail::OpInfo& info = table->ops[size_t(op)];
            EXPECT_EQ(info.hasArg, hasArg == 1) << name;
            EXPECT_EQ(info.caches, caches) << name;
            std::string ours;
            const std::pair<char, uint8_t> letters[] = { { 'c', detail::kHasConst }, { 'n', detail::kHasName },
                { 'r', detail::kHasJrel }, { 'a', detail::kHasJabs }, { 'l', detail::kHasLocal },
                { 'f', detail::kHasFree }, { 'm', detail::kHasCompare } };
            for (const auto& [letter, bit] : letters)
                if (info.lists & bit)
                    ours += letter;
            EXPECT_EQ(ours.empty() ? "-" : ours, lists) << name;
        }
        EXPECT_GT(rows, 100u);
        EXPECT_EQ(opcodeNames(v), expectedNames);
    }
    EXPECT_EQ(detail::opTable({ 3, 7 }), nullptr);
    EXPECT_EQ(opcodeNames({ 3, 14 }), std::vector<std::string>(256));
}

TEST(MarshalReader, ValuesOfEveryType)
{
    EXPECT_EQ(reprOf("N"), "None");
    EXPECT_EQ(reprOf(W().smallTuple(5).raw("TFS.N").b), "(True, False, <class 'StopIteration'>, Ellipsis, None)");
    EXPECT_EQ(reprOf(W().byte('i').i32(-5).b), "-5");
    EXPECT_EQ(reprOf("I" + std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8)), "9223372036854775807");
    // 2**100 in 15-bit digits, and -2**63 (five digits, still an int64).
    const std::string big = "l" + W().i32(7).b + std::string(12, '\0') + bytesOf({ 0, 4 });
    EXPECT_EQ(reprOf(big), "1267650600228229401496703205376");
    const Document minInt = readBytes(bytesOf({ 0xec, 0xfb, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0 }));
    EXPECT_EQ(minInt.at(minInt.root).kind, Kind::Int);
    EXPECT_EQ(minInt.at(minInt.root).integer, INT64_MIN);
    EXPECT_EQ(reprOf(bytesOf({ 'l', 0, 0, 0, 0 })), "0");
    EXPECT_EQ(readBytes(big).at(0).kind, Kind::BigInt);
    EXPECT_EQ(readBytes(big).at(0).text, "1267650600228229401496703205376");
    // Floats: binary and text forms; complex likewise.
    EXPECT_EQ(reprOf("g" + std::string("\x9a\x99\x99\x99\x99\x99\xb9\x3f", 8)), "0.1");
    EXPECT_EQ(reprOf(W().shortStr('f', "-1e-5").b), "-1e-05");
    EXPECT_EQ(reprOf(W().shortStr('f', "1e999").b), "inf");
    EXPECT_EQ(reprOf(W().shortStr('f', "1e-999").b), "0.0");
    EXPECT_EQ(reprOf(W().shortStr('f', "nan").b), "nan");
    EXPECT_EQ(reprOf(W().byte('x').byte(4).raw("-0.0").byte(2).raw("-3").b), "(-0-3j)");
    EXPECT_EQ(reprOf("y" + std::string(8, '\0') + std::string("\0\0\0\0\0\0\xf0\x3f", 8)), "1j");
    EXPECT_EQ(reprOf(W().byte('x').byte(3).raw("1.5").byte(3).raw("nan").b), "(1.5+nanj)");
    EXPECT_EQ(reprOf(W().byte('x').byte(3).raw("inf").byte(1).raw("0").b), "(inf+0j)");
    // Strings: Python's quoting, escapes of unprintable characters, lone surrogates (surrogatepass).
    EXPECT_EQ(reprOf(W().str('u', "it's").b), "\"it's\"");
    EXPECT_EQ(reprOf(W().str('t', "say \"hi\" it's").b), "'say \"hi\" it\\'s'");
    EXPECT_EQ(reprOf(W().str('u',
                            "a\xc2\x85\xc2\xa0"
                            "b\xe6\x97\xa5\t\x1b")
                         .b),
        "'a\\x85\\xa0b\xe6\x97\xa5\\t\\x1b'");
    EXPECT_EQ(reprOf(W().str('u', "\xed\xa0\x80").b), "'\\ud800'");
    EXPECT_EQ(reprOf(W().str('u', "\xf0\x9f\x98\x80\xe2\x80\xa8").b), "'\xf0\x9f\x98\x80\\u2028'");
    EXPECT_EQ(reprOf(W().str('a', "caf\xe9").b), "'caf\xc3\xa9'"); // the ASCII forms read as Latin-1
    EXPECT_EQ(reprOf(W().shortStr('Z', "").b), "''");
    EXPECT_EQ(reprOf(W().str('A', "x").b), "'x'");
    EXPECT_EQ(reprOf(W().str('s', std::string("\0'\"\\\x7f", 5)).b), "b'\\x00\\'\"\\\\\\x7f'");
    EXPECT_EQ(reprOf(W().str('s', "it's").b), "b\"it's\"");
    // Containers.
    EXPECT_EQ(reprOf(W().smallTuple(1).byte('i').i32(1).b), "(1,)");
    EXPECT_EQ(reprOf(W().smallTuple(0).b), "()");
    EXPECT_EQ(reprOf(W().byte('(').i32(2).raw("NT").b), "(None, True)");
    EXPECT_EQ(reprOf(W().byte('[').i32(2).raw("N").byte('[').i32(0).b), "[None, []]");
    EXPECT_EQ(reprOf(W().byte('{').shortStr('z', "k").byte('i').i32(1).raw("N").raw("F").raw("0").b),
        "{'k': 1, None: False}");
    EXPECT_EQ(reprOf(W().byte('<').i32(0).b), "set()");
    EXPECT_EQ(reprOf(W().byte('>').i32(0).b), "frozenset()");
    EXPECT_EQ(reprOf(W().byte('<').i32(1).raw("N").b), "{None}");
    // A frozenset prints in hash-table order, as CPython rebuilds it from the stored items.
    EXPECT_EQ(reprOf(W().byte('>').i32(3).byte('i').i32(197).byte('i').i32(227).byte('i').i32(293).b),
        "frozenset({293, 227, 197})");
    EXPECT_EQ(reprOf(W().byte('>').i32(3).byte('i').i32(1).raw("T").byte('i').i32(2).b), "frozenset({1, 2})");
    // Strings' hashes are random per process: their stored order is kept.
    EXPECT_EQ(reprOf(W().byte('>').i32(2).shortStr('z', "b").shortStr('z', "a").b), "frozenset({'b', 'a'})");
}

TEST(MarshalReader, RefsShareOneValueAndCyclesPrint)
{
    // An interned string with FLAG_REF, then two refs to it.
    const Document doc
        = readBytes(W().smallTuple(3).byte('Z' | 0x80).byte(1).raw("x").byte('r').i32(0).byte('r').i32(0).b);
    const auto& items = doc.at(doc.root).items;
    ASSERT_EQ(items.size(), 3u);
    EXPECT_EQ(items[0], items[1]);
    EXPECT_EQ(items[1], items[2]);
    EXPECT_EQ(repr(doc, doc.root), "('x', 'x', 'x')");
    // A list holding itself, a tuple holding itself (both registered before their items, as in CPython).
    const Document list = readBytes(W().byte('[' | 0x80).i32(2).byte('i').i32(1).byte('r').i32(0).b);
    EXPECT_EQ(list.at(list.root).items[1], list.root);
    EXPECT_EQ(repr(list, list.root), "[1, [...]]");
    EXPECT_EQ(reprOf(W().byte('(' | 0x80).i32(1).byte('r').i32(0).b), "((...),)");
    EXPECT_EQ(reprOf(W().byte('{' | 0x80).shortStr('z', "self").byte('r').i32(0).raw("0").b), "{'self': {...}}");
    EXPECT_EQ(reprOf(W().byte('<' | 0x80).i32(1).byte('r').i32(0).b), "{set(...)}");
    // Singletons are one value each, and FLAG_REF on them registers nothing (CPython ignores it).
    const Document nones = readBytes(W().smallTuple(3).raw("N").byte('N' | 0x80).raw("N").b);
    EXPECT_EQ(nones.values.size(), 2u);
    EXPECT_EQ(errorOf(W().smallTuple(2).byte('N' | 0x80).byte('r').i32(0).b),
        "compiled_fn: offset 3: TYPE_REF to ref 0, but only 0 are defined (bad marshal data: invalid reference)");
    // Shared values cut short: each tuple holds the next one twice (2^30 paths), 200 characters.
    // Tuples take their ref before their items: the outermost is ref 0, the innermost ref 30.
    std::string nested = W().byte(')' | 0x80).byte(0).b;
    for (int d = 29; d >= 0; --d)
        nested = W().byte(')' | 0x80).byte(2).raw(nested).byte('r').i32(d + 1).b;
    const Document dag = readBytes(nested);
    EXPECT_EQ(dag.values.size(), 31u);
    const std::string text = repr(dag, dag.root, 200);
    EXPECT_EQ(text.size(), 203u);
    EXPECT_EQ(text.substr(0, 12), "((((((((((((");
    EXPECT_EQ(text.substr(text.size() - 3), "...");
}

TEST(MarshalReader, ErrorsNameFileOffsetAndWhat)
{
    EXPECT_EQ(errorOf(W().smallTuple(1).shortStr('z', "abc").b.substr(0, 5)),
        "compiled_fn: offset 2: truncated TYPE_SHORT_ASCII (needs 3 bytes, 1 left)");
    EXPECT_EQ(errorOf(W().byte('z').byte(12).raw("abc").b),
        "compiled_fn: offset 0: truncated TYPE_SHORT_ASCII (needs 12 bytes, 3 left)");
    EXPECT_EQ(errorOf(""), "compiled_fn: empty input: no marshal data");
    EXPECT_EQ(errorOf("\x01"), "compiled_fn: offset 0: unknown type code 0x01 (not marshal data, or a corrupt one)");
    EXPECT_EQ(errorOf("?"),
        "compiled_fn: offset 0: TYPE_UNKNOWN: marshal.dumps met an object it cannot write (bad marshal data)");
    EXPECT_EQ(errorOf("0"), "compiled_fn: offset 0: NULL object in marshal data for object");
    EXPECT_EQ(errorOf(W().smallTuple(2).raw("N0").b),
        "compiled_fn: offset 0: NULL object in marshal data for tuple (item 1)");
    EXPECT_EQ(errorOf(W().byte('[').i32(1).raw("0").b),
        "compiled_fn: offset 0: NULL object in marshal data for list (item 0)");
    EXPECT_EQ(errorOf(W().smallTuple(2).raw("N").b),
        "compiled_fn: offset 0: truncated TYPE_SMALL_TUPLE (needs 2 bytes, 1 left)");
    EXPECT_EQ(errorOf(W().byte('{').raw("N").b),
        "compiled_fn: offset 2: truncated: the input ends where a value should start");
    EXPECT_EQ(errorOf(W().byte('r').i32(3).b),
        "compiled_fn: offset 0: TYPE_REF to ref 3, but only 0 are defined (bad marshal data: invalid reference)");
    EXPECT_EQ(errorOf(W().byte('r').i32(-1).b),
        "compiled_fn: offset 0: TYPE_REF to ref -1, but only 0 are defined (bad marshal data: invalid reference)");
    // A frozenset and a code object are registered only once complete (r_ref_reserve).
    EXPECT_EQ(errorOf(W().byte('>' | 0x80).i32(1).byte('r').i32(0).b),
        "compiled_fn: offset 5: TYPE_REF to ref 0, a code object or frozenset still being read (bad marshal data: "
        "invalid reference)");
    W selfCode;
    selfCode.byte('c' | 0x80).i32(0).i32(0).i32(0).i32(0).i32(0).str('s', "").byte('r').i32(0);
    EXPECT_EQ(errorOf(selfCode.b),
        "compiled_fn: offset 26: TYPE_REF to ref 0, a code object or frozenset still being read (bad marshal data: "
        "invalid reference)");
    EXPECT_EQ(
        errorOf(W().str('u', "\xff").b), "compiled_fn: offset 0: TYPE_UNICODE string is not valid UTF-8 (byte 0 of 1)");
    EXPECT_EQ(errorOf(W().str('t', "a\xc0\x80").b),
        "compiled_fn: offset 0: TYPE_INTERNED string is not valid UTF-8 (byte 1 of 3)");
    EXPECT_EQ(errorOf(W().byte('u').i32(-1).b), "compiled_fn: offset 0: TYPE_UNICODE with a negative size -1");
    EXPECT_EQ(errorOf(bytesOf({ 'l', 1, 0, 0, 0, 0, 0 })),
        "compiled_fn: offset 0: TYPE_LONG with a zero top digit (bad marshal data: unnormalized long data)");
    EXPECT_EQ(errorOf(bytesOf({ 'l', 1, 0, 0, 0, 0, 0x80 })),
        "compiled_fn: offset 0: TYPE_LONG digit 0 out of range (bad marshal data)");
    EXPECT_EQ(errorOf(W().shortStr('f', "1.5x").b), "compiled_fn: offset 0: TYPE_FLOAT text '1.5x' is not a number");
    EXPECT_EQ(errorOf(W().shortStr('f', "0x10").b), "compiled_fn: offset 0: TYPE_FLOAT text '0x10' is not a number");
    EXPECT_EQ(errorOf("g\x01\x02"), "compiled_fn: offset 0: truncated TYPE_BINARY_FLOAT (needs 8 bytes, 2 left)");
}

TEST(MarshalReaderLimits, HugeLengthsDepthBombsAndBigInts)
{
    // Declared lengths far beyond the input are errors before anything is allocated.
    EXPECT_EQ(errorOf(W().byte('(').i32(0x7FFFFFFF).b),
        "compiled_fn: offset 0: truncated TYPE_TUPLE (needs 2147483647 bytes, 0 left)");
    EXPECT_EQ(errorOf(W().byte('[').i32(-2).b), "compiled_fn: offset 0: TYPE_LIST with a negative size -2");
    EXPECT_EQ(errorOf(W().byte('s').i32(0x7FFFFFFF).raw("ab").b),
        "compiled_fn: offset 0: truncated TYPE_STRING (needs 2147483647 bytes, 2 left)");
    EXPECT_EQ(errorOf(W().byte('l').i32(INT32_MIN).b),
        "compiled_fn: offset 0: truncated TYPE_LONG (needs 4294967296 bytes, 0 left)");
    EXPECT_EQ(errorOf(W().byte('<').i32(1000).raw("N").b),
        "compiled_fn: offset 0: truncated TYPE_SET (needs 1000 bytes, 1 left)");
    // 100k nested lists.
    std::string bomb;
    for (int i = 0; i < 100000; ++i)
        bomb += W().byte('[').i32(1).b;
    bomb += "N";
    EXPECT_EQ(errorOf(bomb), "compiled_fn: offset 10000: values nest more than 2000 levels deep (Limits::maxDepth)");
    // Just under the limit: read, printed and listed without running out of stack (the reader, repr
    // and the listing recurse once per level), here and in the sanitizer build.
    std::string deep;
    for (int i = 0; i < 1999; ++i)
        deep += W().byte('[').i32(1).b;
    deep += "N";
    const Document deepList = readBytes(deep);
    EXPECT_EQ(repr(deepList, deepList.root, 100000), std::string(1999, '[') + "None" + std::string(1999, ']'));
    // Code objects nested 999 deep (each one level, its constants one more; each starts with 36
    // bytes: 'c', six int32s, co_code, the header of the constants' tuple).
    std::string code = code38(bytesOf({ 100, 0, 83, 0 }), consts({ 1 }), {}).b;
    for (int i = 0; i < 998; ++i)
        code = code38(bytesOf({ 100, 0, 83, 0 }), W().smallTuple(1).raw(code).b, {}).b;
    const Document deepCode = readBytes(code);
    EXPECT_EQ(deepCode.codes.size(), 999u);
    auto deepListing = disListing(deepCode, { 3, 8 });
    ASSERT_TRUE(deepListing.ok());
    EXPECT_EQ(std::count(deepListing->begin(), deepListing->end(), '\n'), 998 * 4 + 2);
    EXPECT_EQ(errorOf(code38(bytesOf({ 100, 0, 83, 0 }), W().smallTuple(1).raw(code).b, {}).b),
        "compiled_fn: offset " + std::to_string(1000 * 36)
            + ": values nest more than 2000 levels deep (Limits::maxDepth)");
    Limits shallow;
    shallow.maxDepth = 10;
    EXPECT_EQ(
        errorOf(bomb, shallow), "compiled_fn: offset 50: values nest more than 10 levels deep (Limits::maxDepth)");
    // Ints: 4300 decimal digits are read, more are refused before the quadratic conversion.
    const auto longOf = [](size_t digits) {
        W w;
        w.byte('l').i32(int64_t(digits));
        for (size_t k = 0; k < digits; ++k)
            w.byte(0xff).byte(0x7f);
        return w.b;
    };
    const Document near = readBytes(longOf(950)); // 14250 bits: 4290 digits
    EXPECT_EQ(near.at(near.root).text.size(), 4290u);
    EXPECT_EQ(near.at(near.root).text.substr(0, 6), "475815");
    EXPECT_EQ(errorOf(longOf(953)),
        "compiled_fn: offset 0: TYPE_LONG has 4304 decimal digits, more than 4300 (Limits::maxIntDigits)");
    EXPECT_EQ(errorOf(longOf(100000)),
        "compiled_fn: offset 0: TYPE_LONG of 1500000 bits has more than 4300 decimal digits (Limits::maxIntDigits)");
    Limits few;
    few.maxValues = 10;
    EXPECT_EQ(errorOf(W().byte('[').i32(20).raw(std::string(20, 'N')).b, few), "ok"); // None is one value
    std::string ints = W().byte('[').i32(20).b;
    for (int i = 0; i < 20; ++i)
        ints += W().byte('i').i32(i).b;
    EXPECT_EQ(errorOf(ints, few), "compiled_fn: offset 50: more than 10 values (Limits::maxValues)");
    Limits refs;
    refs.maxRefs = 3;
    std::string flagged = W().byte('[').i32(5).b;
    for (int i = 0; i < 5; ++i)
        flagged += W().byte('i' | 0x80).i32(i).b;
    EXPECT_EQ(errorOf(flagged, refs), "compiled_fn: offset 20: more than 3 refs (Limits::maxRefs)");
    Limits small;
    small.maxBytes = 4;
    EXPECT_EQ(errorOf("NNNNN", small),
        "compiled_fn: the marshal data is 5 bytes, more than the limit of 4 (Limits::maxBytes)");
    auto missing = readMarshalFile(kDir + "no_such.marshal");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, engine::ErrorCode::Io);
}

TEST(MarshalReader, TrailingBytesAreAWarning)
{
    const Document doc = readBytes("NNN");
    EXPECT_EQ(doc.at(doc.root).kind, Kind::None);
    ASSERT_EQ(doc.warnings.size(), 1u);
    EXPECT_EQ(doc.warnings[0], "offset 1: 2 bytes after the value ignored (marshal.loads ignores them too)");
    const std::string fixture = fileBytes(kDir + "compiled_fn.py312.marshal");
    const Document more = readBytes(fixture + "junk");
    ASSERT_EQ(more.warnings.size(), 1u);
    EXPECT_EQ(more.warnings[0],
        "offset " + std::to_string(fixture.size())
            + ": 4 bytes after the value ignored (marshal.loads ignores them too)");
    // marshal.c ends a dict at a NULL value too (the key is dropped).
    const Document dict = readBytes(W().byte('{').raw("N0").b);
    EXPECT_EQ(repr(dict, dict.root), "{}");
    ASSERT_EQ(dict.warnings.size(), 1u);
}

TEST(MarshalReader, EveryPrefixOfEveryFixtureIsAnError)
{
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
        if (entry.path().extension() != ".marshal")
            continue;
        ++files;
        const std::string bytes = fileBytes(entry.path().string());
        ASSERT_TRUE(readMarshal(bytes, "whole").ok()) << entry.path();
        for (size_t n = 0; n < bytes.size(); ++n) {
            auto r = readMarshal(std::string_view(bytes.data(), n), "prefix");
            ASSERT_FALSE(r.ok()) << entry.path().filename() << " prefix of " << n << " bytes";
            EXPECT_EQ(r.error().context.rfind("prefix", 0), 0u) << r.error().toString();
        }
    }
    EXPECT_EQ(files, 6u * 6 + 3);
}

TEST(MarshalReader, EveryByteFlippedReadsOrFailsCleanly)
{
    // Hostile variants of real data: each byte of a fixture replaced; whatever reads also lists.
    for (const char* file : { "closure.py310.marshal", "control.py313.marshal" }) {
        SCOPED_TRACE(file);
        const std::string bytes = fileBytes(kDir + file);
        size_t read = 0;
        for (size_t k = 0; k < bytes.size(); ++k) {
            for (int value : { 0x00, 0x7f, 0xff }) {
                std::string mutated = bytes;
                mutated[k] = char(value);
                auto r = readMarshal(mutated, "flipped");
                if (!r.ok())
                    continue;
                ++read;
                (void)repr(*r, r->root, 1000);
                for (const PyVersion& v : guessVersion(*r).candidates)
                    (void)disListing(*r, v);
            }
        }
        EXPECT_GT(read, bytes.size());
    }
}

TEST(MarshalReader, CodeObjectsHandMade)
{
    // The smallest 3.8 function: LOAD_FAST a; RETURN_VALUE.
    const Document doc = readBytes(code38(bytesOf({ 124, 0, 83, 0 }), consts({}), {}).b);
    ASSERT_NE(doc.rootCode(), nullptr);
    EXPECT_EQ(doc.layout, CodeLayout::Py38);
    EXPECT_EQ(doc.rootCode()->argumentNames(), std::vector<std::string> { "a" });
    EXPECT_EQ(doc.rootCode()->qualname, "f");
    EXPECT_EQ(withoutAddresses(repr(doc, doc.root)), "<code object f at 0x..., file \"model.py\", line 1>");
    // Line 0 prints as -1, as code_repr does.
    const Document line0 = readBytes(code38(bytesOf({ 124, 0, 83, 0 }), consts({}), {}, "", 0).b);
    EXPECT_NE(repr(line0, line0.root).find(", line -1>"), std::string::npos);
    // 3.11 localsplus kinds: a local that is also a cell.
    W w;
    w.byte('c').i32(1).i32(0).i32(0).i32(2).i32(3).str('s', bytesOf({ 135, 0, 151, 0, 83, 0 })).raw(consts({}));
    w.names({}).names({ "a", "b", "c" }).str('s', bytesOf({ 0x60, 0x40, 0x80 }));
    w.shortStr('z', "m.py").shortStr('z', "g").shortStr('z', "C.g").i32(3).str('s', "").str('s', "");
    const Document kinds = readBytes(w.b);
    ASSERT_NE(kinds.rootCode(), nullptr);
    EXPECT_EQ(kinds.layout, CodeLayout::Py311);
    EXPECT_EQ(kinds.rootCode()->varNames, std::vector<std::string> { "a" });
    EXPECT_EQ(kinds.rootCode()->cellVars, (std::vector<std::string> { "a", "b" }));
    EXPECT_EQ(kinds.rootCode()->freeVars, std::vector<std::string> { "c" });
    EXPECT_EQ(kinds.rootCode()->nLocals, 1);
    EXPECT_EQ(kinds.rootCode()->qualname, "C.g");
    // What CPython's code constructor refuses; the error of the layout that read further is told.
    W intNames;
    intNames.byte('c').i32(1).i32(0).i32(0).i32(1).i32(2).i32(0x43).str('s', bytesOf({ 83, 0 })).raw(consts({}));
    intNames.smallTuple(1).byte('i').i32(7);
    EXPECT_EQ(errorOf(intNames.b), "compiled_fn: offset 34: non-string found in code slot co_names (item 0 is an int)");
    W odd;
    odd.byte('c').i32(0).i32(0).i32(0).i32(0).i32(0).str('s', "abc").raw(consts({})).names({}).names({}).str('s', "");
    odd.shortStr('z', "m.py").shortStr('z', "g").shortStr('z', "g").i32(1).str('s', "").str('s', "");
    EXPECT_EQ(errorOf(odd.b),
        "compiled_fn: offset 0: bad code object: co_code has an odd length (code: co_code is malformed)");
    W noArgs;
    noArgs.byte('c').i32(2).i32(0).i32(0).i32(1).i32(2).i32(0).str('s', bytesOf({ 83, 0 })).raw(consts({}));
    noArgs.names({}).names({ "a" }).names({}).names({}).shortStr('z', "m.py").shortStr('z', "g").i32(1).str('s', "");
    EXPECT_EQ(errorOf(noArgs.b), "compiled_fn: offset 0: bad code object: co_varnames is too small for its arguments");
    W negative;
    negative.byte('c').i32(0).i32(0).i32(-1).i32(1).i32(2).i32(0).str('s', bytesOf({ 83, 0 })).raw(consts({}));
    negative.names({}).names({}).names({}).names({}).shortStr('z', "m.py").shortStr('z', "g").i32(1).str('s', "");
    EXPECT_NE(errorOf(negative.b).find("bad code object: counts out of range"), std::string::npos);
    W listConsts = code38(bytesOf({ 83, 0 }), W().byte('[').i32(0).b, {});
    EXPECT_EQ(errorOf(listConsts.b), "compiled_fn: offset 32: code object field co_consts is a list, not a tuple");
}

TEST(MarshalDisassembler, ExtendedArgsJumpsAndLines)
{
    // 3.8: an absolute jump past offset 255 needs EXTENDED_ARG; absolute jumps print no "to".
    std::string code38bytes = bytesOf({ 144, 1, 113, 4 }); // EXTENDED_ARG 1; JUMP_ABSOLUTE 260
    for (int i = 0; i < 128; ++i)
        code38bytes += bytesOf({ 9, 0 }); // NOP
    code38bytes += bytesOf({ 124, 0, 83, 0 });
    const std::string l38 = listing(code38(code38bytes, consts({}), {}, bytesOf({ 4, 1 })).b, { 3, 8 });
    const std::string head = "  1           0 EXTENDED_ARG             1\n"
                             "              2 JUMP_ABSOLUTE          260\n\n"
                             "  2           4 NOP\n";
    EXPECT_EQ(l38.substr(0, head.size()), head);
    EXPECT_NE(l38.find("        >>  260 LOAD_FAST                0 (a)\n"), std::string::npos) << l38;
    // 3.10: jumps count instructions; lines come from the 3.10 line table (covering the code).
    const std::string l310
        = listing(code38(bytesOf({ 124, 0, 114, 3, 9, 0, 83, 0 }), consts({}), {}, bytesOf({ 4, 0, 2, 1, 2, 0x80 })).b,
            { 3, 10 });
    EXPECT_EQ(l310,
        "  1           0 LOAD_FAST                0 (a)\n"
        "              2 POP_JUMP_IF_FALSE        3 (to 6)\n\n"
        "  2           4 NOP\n"
        "        >>    6 RETURN_VALUE\n");
    // An index out of range prints as such (dis raises IndexError) and rules the version out.
    const std::string badConst = code38(bytesOf({ 100, 9, 83, 0 }), consts({ 1 }), {}).b;
    EXPECT_NE(
        listing(badConst, { 3, 9 }).find("LOAD_CONST               9 (<index 9 out of range>)"), std::string::npos);
    EXPECT_EQ(guessVersion(readBytes(badConst)).reason.find("reads cleanly"), std::string::npos);
    // A byte no version knows: "<N>", as dis prints it.
    EXPECT_NE(listing(code38(bytesOf({ 0, 0, 83, 0 }), consts({}), {}).b, { 3, 8 }).find("<0>"), std::string::npos);
    // 3.11: LOAD_GLOBAL with NULL, caches hidden, a backward jump, the exception table.
    // RESUME 0; LOAD_GLOBAL 1 + 5 caches; JUMP_BACKWARD 7 (to 2)
    const std::string code311bytes = bytesOf({ 151, 0, 116, 1 }) + std::string(10, '\0') + bytesOf({ 140, 7 });
    // Location table: 1 unit on line 1, 6 units on line 2 (no columns), 1 unit without a line.
    const std::string table311 = bytesOf({ 0xe8, 0x00, 0xed, 0x02, 0xf8 });
    const std::string l311
        = listing(code311(code311bytes, consts({}), { "g" }, table311, bytesOf({ 0x81, 6, 1, 2 })).b, { 3, 11 });
    EXPECT_EQ(l311,
        "  1           0 RESUME                   0\n\n"
        "  2     >>    2 LOAD_GLOBAL              1 (NULL + g)\n"
        "             14 JUMP_BACKWARD            7 (to 2)\n"
        "ExceptionTable:\n"
        "  2 to 12 -> 2 [1]\n");
}

TEST(MarshalDisassembler, ListingErrors)
{
    const Document none = readBytes("N");
    auto r = disListing(none, { 3, 11 });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "the marshal data holds no code object at its root");
    const Document py38 = readOk("compiled_fn.py38.marshal");
    r = disListing(py38, { 3, 12 });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "code objects of the 3.8-3.10 layout are not 3.12 bytecode");
    EXPECT_FALSE(disListing(py38, { 3, 7 }).ok());
    EXPECT_FALSE(disassemble(py38, 5, { 3, 8 }).ok());
    auto instructions = disassemble(py38, 0, { 3, 8 });
    ASSERT_TRUE(instructions.ok());
    ASSERT_GE(instructions->size(), 4u);
    EXPECT_EQ((*instructions)[0].opname, "LOAD_GLOBAL");
    EXPECT_EQ((*instructions)[0].argRepr, "__compiled_fn_1");
    EXPECT_EQ((*instructions)[0].line, 4);
    EXPECT_TRUE((*instructions)[0].startsLine);
    const Document py313 = readOk("compiled_fn.py313.marshal");
    auto i313 = disassemble(py313, uint32_t(py313.codes.size() - 1), { 3, 13 });
    ASSERT_TRUE(i313.ok());
    EXPECT_EQ((*i313)[1].argRepr, "__compiled_fn_1 + NULL");
    EXPECT_EQ((*i313)[1].caches, 4);
    EXPECT_TRUE(std::any_of(i313->begin(), i313->end(), [](const Instruction& in) { return in.label == 1; }));
}

TEST(MarshalVersions, ParseAndText)
{
    PyVersion v;
    EXPECT_TRUE(parseVersion("3.10", v));
    EXPECT_EQ(v.text(), "3.10");
    EXPECT_TRUE(parseVersion("py311", v));
    EXPECT_EQ(v, (PyVersion { 3, 11 }));
    EXPECT_TRUE(parseVersion("38", v));
    EXPECT_EQ(v.minor, 8);
    EXPECT_FALSE(parseVersion("3.7", v));
    EXPECT_FALSE(parseVersion("3.14", v));
    EXPECT_FALSE(parseVersion("2.7", v));
    EXPECT_FALSE(parseVersion("3.08", v));
    EXPECT_FALSE(parseVersion("", v));
    EXPECT_EQ(supportedVersions().size(), 6u);
}
