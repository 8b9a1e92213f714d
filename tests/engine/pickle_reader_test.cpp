// The static pickle reader: fixtures of every protocol made by tests/data/pickle/
// make_pickle_fixtures.py (Python's own pickle), TorchAir's cache layout, foreign classes, sharing
// and cycles, hand-made broken and hostile inputs.
#include "engine/pickle/pickle_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>

namespace {

using namespace engine::pickle;

const std::string kDir = std::string(ACLGI_TEST_DATA_DIR) + "/pickle/";

std::string fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Document readOk(const std::string& file, const AllowList* allow = nullptr)
{
    ReadOptions options;
    options.allow = allow;
    auto r = readPickleFile(kDir + file, options);
    EXPECT_TRUE(r.ok()) << file << ": " << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : Document {};
}

/// The error text of reading `bytes`, or "ok".
std::string errorOf(const std::string& bytes, const Limits& limits = {})
{
    ReadOptions options;
    options.limits = limits;
    auto r = readPickle(bytes, "compiled_module", options);
    return r.ok() ? "ok" : r.error().toString();
}

Document readBytes(const std::string& bytes)
{
    auto r = readPickle(bytes, "test.pkl");
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : Document {};
}

/// A byte string literal with its NULs.
template <size_t N> std::string bin(const char (&s)[N])
{
    return std::string(s, N - 1);
}

std::string reprOf(const Document& doc, uint32_t id)
{
    return repr(doc, id, 100000);
}

std::string le32(uint32_t v)
{
    std::string s;
    for (int k = 0; k < 4; ++k)
        s += char((v >> (8 * k)) & 0xFF);
    return s;
}

std::string le64(uint64_t v)
{
    std::string s;
    for (int k = 0; k < 8; ++k)
        s += char((v >> (8 * k)) & 0xFF);
    return s;
}

const std::string kInts = "[0, 1, -1, 255, 256, 65535, 65536, 2147483647, -2147483648, 9223372036854775807, "
                          "-9223372036854775808, 9223372036854775808, -9223372036854775809, 18446744073709551621, 1"
    + std::string(100, '0') + ", -1" + std::string(100, '0') + "]";

} // namespace

TEST(PickleReader, EveryProtocolReadsTheSameValues)
{
    for (int p = 0; p <= 5; ++p) {
        SCOPED_TRACE("protocol " + std::to_string(p));
        const Document doc = readOk("values_p" + std::to_string(p) + ".pkl");
        EXPECT_EQ(doc.protocol, p);
        ASSERT_EQ(doc.at(doc.root).kind, Kind::Dict);
        EXPECT_EQ(reprOf(doc, dictGet(doc, doc.root, "ints")), kInts);
        EXPECT_EQ(
            reprOf(doc, dictGet(doc, doc.root, "floats")), "[1.5, -0.0, 1e+300, 5e-324, 0.1, 123456789.125, 1e+16]");
        EXPECT_EQ(reprOf(doc, dictGet(doc, doc.root, "strs")),
            "['', 'ascii', 'h\xc3\xa9llo', '\xe6\x97\xa5\xe6\x9c\xac', '\xf0\x9f\x98\x80', 'quote\\'\"\\\\\\n\\t']");
        EXPECT_EQ(reprOf(doc, dictGet(doc, doc.root, "consts")), "[None, True, False]");
        EXPECT_EQ(reprOf(doc, dictGet(doc, doc.root, "nested")),
            "[(1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (), [[], {}], {'k': [1, {'deep': (None,)}]}]");
        EXPECT_EQ(doc.depth, 7u); // root, 'nested', {'k'}, [1, ...], {'deep'}, (None,), None
        EXPECT_FALSE(doc.hasCycles);
        if (p >= 3) { // protocols 0-2 pickle bytes and sets through _codecs.encode / builtins calls
            EXPECT_EQ(reprOf(doc, dictGet(doc, doc.root, "bytes")), "[b'', b'\\x00\\xff', b'abc']");
            EXPECT_TRUE(doc.findings.empty() == (p >= 4));
        }
        if (p >= 4) {
            EXPECT_EQ(reprOf(doc, dictGet(doc, doc.root, "sets")), "[{1, 2, 3}, frozenset({7}), set()]");
        }
    }
}

TEST(PickleReader, IntegersOfAnyLength)
{
    const Document doc = readOk("values_p4.pkl");
    const Ids ints = doc.items(dictGet(doc, doc.root, "ints"));
    ASSERT_EQ(ints.size(), 16u);
    EXPECT_EQ(doc.at(ints[10]).kind, Kind::Int);
    EXPECT_EQ(doc.at(ints[10]).integer(), INT64_MIN);
    // 2**63 is a 9-byte LONG1 (the integer MemoryViz.js failed on).
    ASSERT_EQ(doc.at(ints[11]).kind, Kind::BigInt);
    EXPECT_EQ(doc.bytes(ints[11]), std::string("\0\0\0\0\0\0\0\x80\0", 9));
    EXPECT_EQ(bigIntDecimal(doc, ints[11]), "9223372036854775808");
    EXPECT_EQ(bigIntDecimal(doc, ints[12]), "-9223372036854775809");
    EXPECT_EQ(bigIntDecimal(doc, ints[14]), "1" + std::string(100, '0'));
    EXPECT_EQ(bigIntDecimal(doc, ints[14], 50), ""); // more digits than asked for
    EXPECT_EQ(bigIntDecimal(doc, ints[15]), "-1" + std::string(100, '0'));
    // LONG4 with redundant sign bytes still fits an int64; LONG1 of zero bytes is 0.
    const Document small
        = readBytes("\x8b" + le32(12) + std::string("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 12) + ".");
    EXPECT_EQ(small.at(small.root).kind, Kind::Int);
    EXPECT_EQ(small.at(small.root).integer(), -2);
    const Document zero = readBytes(std::string("\x8a\x00.", 3));
    EXPECT_EQ(zero.at(zero.root).integer(), 0);
}

TEST(PickleReader, SharedObjectKeepsOneId)
{
    for (const char* file : { "shared_p0.pkl", "shared_p2.pkl", "shared_p4.pkl" }) {
        SCOPED_TRACE(file);
        const Document doc = readOk(file);
        const uint32_t a = dictGet(doc, doc.root, "a");
        EXPECT_EQ(doc.at(a).kind, Kind::List);
        EXPECT_EQ(dictGet(doc, doc.root, "b"), a);
        const Ids t = doc.items(dictGet(doc, doc.root, "t"));
        ASSERT_EQ(t.size(), 2u);
        EXPECT_EQ(t[0], a);
        EXPECT_EQ(t[1], a);
        EXPECT_EQ(reprOf(doc, doc.root), "{'a': [1, 2], 'b': [1, 2], 't': ([1, 2], [1, 2])}");
        EXPECT_FALSE(doc.hasCycles);
    }
}

TEST(PickleReader, SelfReferencingListIsACycle)
{
    for (const char* file : { "self_ref_p0.pkl", "self_ref_p4.pkl" }) {
        SCOPED_TRACE(file);
        const Document doc = readOk(file);
        const Ids items = doc.items(doc.root);
        ASSERT_EQ(items.size(), 2u);
        EXPECT_EQ(items[1], doc.root);
        EXPECT_TRUE(doc.hasCycles);
        EXPECT_EQ(reprOf(doc, doc.root), "[1, [...]]");
    }
}

TEST(PickleReader, ObjectInsideItsOwnStateIsACycle)
{
    // class X: NEWOBJ, then BUILD with {'self': <the object>} through the memo.
    const Document doc = readBytes(bin("\x80\x02"
                                       "c__main__\nX\n)\x81q\x00}q\x01(U\x04selfh\x00ub."));
    EXPECT_TRUE(doc.hasCycles);
    EXPECT_EQ(field(doc, doc.root, "self"), doc.root);
    EXPECT_EQ(reprOf(doc, doc.root), "X(self=...)");
}

TEST(PickleReader, TorchAirCacheLayout)
{
    const AllowList allow = AllowList::torchair();
    const Document doc = readOk("torchair_cache.pkl", &allow);
    EXPECT_EQ(doc.protocol, 4);
    EXPECT_TRUE(doc.findings.empty());
    EXPECT_TRUE(doc.warnings.empty());
    const Value& root = doc.at(doc.root);
    ASSERT_EQ(root.kind, Kind::Object);
    EXPECT_EQ(root.how, ObjectHow::NewObj);
    EXPECT_EQ(className(doc, doc.root), "torchair.inference._cache_compiler.ModelCacheArtifact");
    const uint32_t meta = field(doc, doc.root, "meta");
    EXPECT_EQ(className(doc, meta), "torchair.inference._cache_compiler.ModelCacheMeta");
    EXPECT_EQ(doc.str(field(doc, meta, "version")), "1.0.5");
    // TorchAir's log line prints the dataclass repr: "Cache ModelCacheMeta(...) saved to <path>".
    EXPECT_EQ(repr(doc, meta, 1000),
        "ModelCacheMeta(name='Model.prompt(x)', date='2026-06-01 12:00:00.123456+00:00', version='1.0.5')");
    EXPECT_EQ(doc.at(field(doc, doc.root, "compiled_fn")).kind, Kind::Bytes);
    EXPECT_EQ(doc.bytes(field(doc, doc.root, "compiled_fn")), std::string("\xe3\0\0\0marshal", 11));
    const uint32_t fx = field(doc, doc.root, "compiled_fx");
    EXPECT_EQ(doc.str(field(doc, fx, "py_code")), "def forward(arg0_1, arg1_1):\n    return (arg0_1,)\n");
    EXPECT_EQ(reprOf(doc, field(doc, fx, "input_parameters")),
        "[('linear1.weight', True), ('linear1.bias', True), (\"L['self'].buffer\", False)]");
    EXPECT_EQ(field(doc, fx, "no_such_field"), kNoValue);
    // The class slot is the STACK_GLOBAL's Global; the module string is memoised and shared.
    const uint32_t rootClass = doc.items(doc.root)[kObjClass];
    const uint32_t metaClass = doc.items(meta)[kObjClass];
    ASSERT_EQ(doc.at(rootClass).kind, Kind::Global);
    EXPECT_EQ(doc.items(rootClass)[0], doc.items(metaClass)[0]);

    // Protocol 2 writes the same objects with GLOBAL and BINPUT.
    const Document p2 = readOk("torchair_cache_p2.pkl", &allow);
    EXPECT_EQ(repr(p2, field(p2, p2.root, "meta"), 1000), repr(doc, meta, 1000));
}

TEST(PickleReader, EachBackendRefusesTheOthersCache)
{
    const AllowList torchair = AllowList::torchair();
    const AllowList npugraphEx = AllowList::npugraphEx();
    EXPECT_TRUE(readOk("npugraph_ex_cache.pkl", &npugraphEx).findings.empty());
    const Document doc = readOk("npugraph_ex_cache.pkl", &torchair);
    ASSERT_EQ(doc.findings.size(), 3u);
    EXPECT_EQ(doc.findings[0].label(), "npugraph_ex.inference._cache_compiler.ModelCacheArtifact");
    EXPECT_EQ(doc.findings[0].what, Finding::What::Class);
    EXPECT_EQ(doc.findings[0].offset, 72u); // its STACK_GLOBAL
    EXPECT_EQ(readOk("torchair_cache.pkl", &npugraphEx).findings.size(), 3u);
    // No allow-list: every class is a finding.
    EXPECT_EQ(readOk("torchair_cache.pkl").findings.size(), 3u);
}

TEST(PickleReader, ForeignCallableIsAFindingNotACall)
{
    const AllowList allow = AllowList::torchair();
    // What pickle writes for os.system: its __module__ is posix.
    const Document natural = readOk("foreign_reduce.pkl", &allow);
    ASSERT_EQ(natural.findings.size(), 1u);
    EXPECT_EQ(natural.findings[0].label(), "posix.system");
    EXPECT_EQ(natural.at(natural.root).kind, Kind::Object);
    EXPECT_EQ(natural.at(natural.root).how, ObjectHow::Reduce);
    EXPECT_EQ(reprOf(natural, natural.root), "posix.system('echo hi')");
    // The classic hand-written one: GLOBAL 'os system', REDUCE.
    const Document classic = readOk("foreign_os_system_p0.pkl", &allow);
    ASSERT_EQ(classic.findings.size(), 1u);
    EXPECT_EQ(classic.findings[0].label(), "os.system");
    EXPECT_EQ(classic.findings[0].offset, 0u);
    EXPECT_EQ(classic.findings[0].value, classic.items(classic.root)[kObjClass]);
    EXPECT_EQ(reprOf(classic, classic.root), "os.system('echo hi')");
}

TEST(PickleReader, ListAndDictSubclassesAndSlots)
{
    const Document doc = readOk("objects_p4.pkl");
    const uint32_t ordered = dictGet(doc, doc.root, "ordered");
    EXPECT_EQ(className(doc, ordered), "collections.OrderedDict");
    EXPECT_EQ(reprOf(doc, doc.items(ordered)[kObjDictItems]), "{'x': 1, 'y': 2}");
    EXPECT_EQ(reprOf(doc, ordered), "collections.OrderedDict({'x': 1, 'y': 2})");
    // __slots__ objects pickle (None, {slot: value}) as their state.
    const uint32_t slotted = dictGet(doc, doc.root, "slotted");
    EXPECT_EQ(doc.at(field(doc, slotted, "a")).integer(), 1);
    EXPECT_EQ(doc.str(field(doc, slotted, "b")), "two");
    EXPECT_EQ(doc.findings.size(), 3u);
}

TEST(PickleReader, MemorySnapshotShape)
{
    const Document doc = readOk("memory_snapshot_like.pkl");
    const uint32_t segment = doc.items(dictGet(doc, doc.root, "segments"))[0];
    EXPECT_EQ(bigIntDecimal(doc, dictGet(doc, segment, "address")), "9223372036854775808");
    EXPECT_EQ(reprOf(doc, dictGet(doc, segment, "segment_pool_id")), "(0, 0)");
    // The frame list is pickled once and shared by the segment, its blocks and the trace.
    const uint32_t frames = dictGet(doc, segment, "frames");
    const Ids blocks = doc.items(dictGet(doc, segment, "blocks"));
    ASSERT_EQ(blocks.size(), 3u);
    for (uint32_t b : blocks)
        EXPECT_EQ(dictGet(doc, b, "frames"), frames);
    EXPECT_EQ(doc.at(dictGet(doc, dictGet(doc, doc.root, "allocator_settings"), "max_split_size")).integer(), -1);
    EXPECT_TRUE(doc.findings.empty());
}

TEST(PickleReader, EveryPrefixOfEveryFixtureIsAnError)
{
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
        if (entry.path().extension() != ".pkl")
            continue;
        ++files;
        const std::string bytes = fileBytes(entry.path().string());
        auto whole = readPickle(bytes, "whole");
        // The end of the first pickle (a second may follow, or the fixture is refused anyway).
        const size_t end = whole.ok() ? size_t(whole->stopOffset) + 1 : bytes.size();
        for (size_t n = 0; n < end; ++n) {
            auto r = readPickle(std::string_view(bytes.data(), n), "prefix");
            ASSERT_FALSE(r.ok()) << entry.path().filename() << " prefix of " << n << " bytes";
            EXPECT_EQ(r.error().context.rfind("prefix", 0), 0u) << r.error().toString();
        }
    }
    EXPECT_GE(files, 20u);
}

TEST(PickleReader, ErrorsNameFileOffsetAndOpcode)
{
    EXPECT_EQ(errorOf("\x80\x04X" + le32(4000) + std::string(12, 'a')),
        "compiled_module: offset 2: truncated BINUNICODE (needs 4000 bytes, 12 left)");
    EXPECT_EQ(
        errorOf("\x80\x04\xff."), "compiled_module: offset 2: unknown opcode 0xff (not a pickle, or a corrupt one)");
    EXPECT_EQ(errorOf(""), "compiled_module: empty input: no pickle");
    EXPECT_EQ(errorOf("K\x01"), "compiled_module: offset 2: truncated: the input ends before STOP");
    EXPECT_EQ(errorOf("a."), "compiled_module: offset 0: stack underflow in APPEND");
    EXPECT_EQ(errorOf("K\x01(K\x02\x86."), "compiled_module: offset 5: stack underflow in TUPLE2");
    EXPECT_EQ(errorOf("K\x01K\x02"
                      "a."),
        "compiled_module: offset 4: APPEND onto an int (needs a list)");
    EXPECT_EQ(errorOf("](K\x01K\x02u."), "compiled_module: offset 6: SETITEMS onto a list (needs a dict)");
    EXPECT_EQ(errorOf("}(K\x01u."), "compiled_module: offset 4: odd number of items for SETITEMS");
    EXPECT_EQ(errorOf(")(K\x01\x90."), "compiled_module: offset 4: ADDITEMS onto a tuple (needs a set)");
    EXPECT_EQ(errorOf("\x80\x04K\x01K\x02\x93."),
        "compiled_module: offset 6: STACK_GLOBAL needs two strings (module, name), not an int and an int");
    EXPECT_EQ(errorOf("K\x01)b."), "compiled_module: offset 3: BUILD onto an int (needs an object)");
    EXPECT_EQ(errorOf("K\x01]R."), "compiled_module: offset 3: REDUCE arguments must be a tuple, not a list");
    EXPECT_EQ(errorOf(std::string("\x8c\x02\xff\xfe.", 5)),
        "compiled_module: offset 0: SHORT_BINUNICODE string is not valid UTF-8");
    EXPECT_EQ(errorOf("h\x05."), "compiled_module: offset 0: BINGET: memo key 5 is not defined");
    EXPECT_EQ(errorOf("K\x01t."), "compiled_module: offset 2: TUPLE without a MARK before it");
    EXPECT_EQ(errorOf("(."), "compiled_module: offset 1: stack underflow in STOP");
    EXPECT_EQ(errorOf("\x80\x06N."), "compiled_module: offset 0: unsupported pickle protocol 6");
    EXPECT_EQ(errorOf("Sabc\n."), "compiled_module: offset 0: STRING argument must be quoted");
    EXPECT_EQ(errorOf("Ix1\n."), "compiled_module: offset 0: INT argument 'x1' is not an integer");
    EXPECT_EQ(errorOf("I12"), "compiled_module: offset 0: truncated INT (its argument has no end of line)");
    EXPECT_EQ(errorOf("Fnope\n."), "compiled_module: offset 0: FLOAT argument 'nope' is not a number");
    EXPECT_EQ(errorOf("Vab\\u12\n."), "compiled_module: offset 0: UNICODE argument: truncated \\uXXXX escape");
    EXPECT_EQ(errorOf(std::string("\x82\x00.", 3)), "compiled_module: offset 0: EXT1 specifies code <= 0");
    EXPECT_EQ(errorOf("\x8b\xff\xff\xff\xff."), "compiled_module: offset 0: LONG4 with a negative byte count");
    auto oob = readPickleFile(kDir + "out_of_band_p5.pkl");
    ASSERT_FALSE(oob.ok());
    EXPECT_NE(oob.error().toString().find("out_of_band_p5.pkl: offset 2: NEXT_BUFFER: out-of-band buffers"),
        std::string::npos)
        << oob.error().toString();
    auto missing = readPickleFile(kDir + "no_such.pkl");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, engine::ErrorCode::Io);
}

TEST(PickleReader, Protocol0TextForms)
{
    const Document doc
        = readBytes("(lp0\nI01\naI00\naI-1\naL123456789012345678901234567890L\naF-2.5e-07\naS'a\\x41\\n'\n"
                    "aVcaf\\u00e9 \\U0001F600\naNag0\na(I1\nI2\nicollections\nnamedtuple\np1\na.");
    EXPECT_EQ(doc.protocol, 0);
    EXPECT_EQ(reprOf(doc, doc.root),
        "[True, False, -1, 123456789012345678901234567890, -2.5e-07, 'aA\\n', 'caf\xc3\xa9 \xf0\x9f\x98\x80', None, "
        "[...], "
        "collections.namedtuple(1, 2)]");
    EXPECT_EQ(doc.at(doc.items(doc.root)[9]).how, ObjectHow::Inst);
    // A Python 2 str that is not ASCII is bytes (what encoding='bytes' gives).
    const Document py2 = readBytes("U\x02\xff\xfe.");
    EXPECT_EQ(py2.at(py2.root).kind, Kind::Bytes);
    // POP right after MARK drops the mark, as _pickle.c does.
    const Document popMark = readBytes("K\x07(0.");
    EXPECT_EQ(popMark.at(popMark.root).integer(), 7);
}

TEST(PickleReader, TrailingBytesAndLeftoversAreWarnings)
{
    const Document doc = readOk("trailing_bytes.pkl");
    EXPECT_EQ(reprOf(doc, doc.root), "[1]");
    ASSERT_EQ(doc.warnings.size(), 1u);
    EXPECT_EQ(doc.warnings[0].offset, 9u);
    EXPECT_EQ(doc.warnings[0].message, "9 bytes after STOP ignored (a second pickle, or garbage)");
    const Document left = readBytes("K\x01(K\x02.");
    ASSERT_EQ(left.warnings.size(), 1u);
    EXPECT_EQ(left.at(left.root).integer(), 2);
    EXPECT_EQ(left.warnings[0].message, "1 values and 1 marks left on the stack at STOP");
}

TEST(PickleReader, ListsFilledInTurnsStayCorrect)
{
    // Two memoised lists appended to alternately: each grows away from the end of the children.
    std::string bytes = bin("]q\x00]q\x01");
    for (int i = 0; i < 1000; ++i)
        bytes += bin("h\x00J") + le32(uint32_t(i)) + "a0h\x01J" + le32(uint32_t(-i)) + "a0";
    bytes += "\x86.";
    const Document doc = readBytes(bytes);
    const Ids pair = doc.items(doc.root);
    ASSERT_EQ(pair.size(), 2u);
    const Ids a = doc.items(pair[0]), b = doc.items(pair[1]);
    ASSERT_EQ(a.size(), 1000u);
    ASSERT_EQ(b.size(), 1000u);
    for (int i = 0; i < 1000; ++i) {
        EXPECT_EQ(doc.at(a[size_t(i)]).integer(), i);
        EXPECT_EQ(doc.at(b[size_t(i)]).integer(), -i);
    }
    EXPECT_LT(doc.children.size(), 5000u); // the moved-away copies were dropped
}

TEST(PickleReaderLimits, DepthBombIsAnError)
{
    // 100k nested lists: EMPTY_LIST x 100001, APPEND x 100000.
    const std::string bomb = std::string(100001, ']') + std::string(100000, 'a') + ".";
    EXPECT_EQ(
        errorOf(bomb), "compiled_module: offset 200001: values nest more than 1000 levels deep (Limits::maxDepth)");
    // A chain met one level at a time: the root holds a0, a1 = [a0], a2 = [a1], ... so no walk
    // goes deep, yet a2000 nests 2001 levels.
    std::string chain = "]r" + le32(0);
    for (uint32_t i = 1; i <= 2000; ++i)
        chain += "(j" + le32(i - 1) + "lr" + le32(i);
    chain += "(";
    for (uint32_t i = 0; i <= 2000; ++i)
        chain += "j" + le32(i);
    chain += "l.";
    EXPECT_NE(errorOf(chain).find("values nest more than 1000 levels deep"), std::string::npos) << errorOf(chain);
    Limits deep;
    deep.maxDepth = 5000;
    EXPECT_EQ(errorOf(chain, deep), "ok");
}

TEST(PickleReaderLimits, MemoBombIsAnError)
{
    std::string bomb = "N";
    for (int i = 0; i < 2000; ++i)
        bomb += "\x94";
    bomb += ".";
    Limits limits;
    limits.maxMemo = 1000;
    EXPECT_EQ(errorOf(bomb, limits), "compiled_module: offset 1001: more than 1000 memo entries (Limits::maxMemo)");
    EXPECT_EQ(errorOf(bomb), "ok");
    // A huge memo index costs one entry, not a 16 GiB table.
    const Document sparse = readBytes("K\x2ar" + le32(0xFFFFFFF0u) + "0j" + le32(0xFFFFFFF0u) + ".");
    EXPECT_EQ(sparse.at(sparse.root).integer(), 42);
    // DUP and GET of one value many times: the values stay few.
    std::string laughs = bin("]q\x00");
    for (int i = 0; i < 30; ++i)
        laughs += bin("h\x00h\x00\x86q\x00");
    laughs += ".";
    const Document dag = readBytes(laughs);
    EXPECT_LE(dag.values.size(), 40u);
    const std::string text = repr(dag, dag.root, 200); // 2^30 paths, cut at 200 characters
    EXPECT_LE(text.size(), 203u);
    EXPECT_EQ(text.substr(text.size() - 3), "...");
}

TEST(PickleReaderLimits, HugeDeclaredLengthsInATinyFile)
{
    EXPECT_EQ(errorOf("\x8d" + le64(uint64_t(1) << 62) + "ab."),
        "compiled_module: offset 0: truncated BINUNICODE8 (needs 4611686018427387904 bytes, 3 left)");
    EXPECT_EQ(errorOf("\x8e" + le64(~uint64_t(0)) + "."),
        "compiled_module: offset 0: truncated BINBYTES8 (needs 18446744073709551615 bytes, 1 left)");
    EXPECT_EQ(errorOf("\x96" + le64(uint64_t(1) << 40) + "."),
        "compiled_module: offset 0: truncated BYTEARRAY8 (needs 1099511627776 bytes, 1 left)");
    EXPECT_EQ(errorOf("\x8b" + le32(0x7FFFFFFF) + "."),
        "compiled_module: offset 0: truncated LONG4 (needs 2147483647 bytes, 1 left)");
    EXPECT_EQ(
        errorOf("T" + le32(0x80000000u) + "."), "compiled_module: offset 0: BINSTRING with a negative byte count");
    EXPECT_EQ(errorOf("\x80\x04\x95" + le64(uint64_t(1) << 40) + "N."),
        "compiled_module: offset 2: FRAME of 1099511627776 bytes, but only 2 bytes are left");
    EXPECT_EQ(errorOf("L" + std::string(5000, '9') + "\n."),
        "compiled_module: offset 0: LONG literal has 5000 digits, more than 4300 (Limits::maxIntDigits)");
    Limits few;
    few.maxValues = 10;
    EXPECT_EQ(errorOf("(" + std::string(20, 'N') + "l.", few), "ok"); // None is one value
    EXPECT_EQ(errorOf(std::string(20, ']') + ".", few),
        "compiled_module: offset 10: more than 10 values (Limits::maxValues)");
    Limits small;
    small.maxBytes = 4;
    EXPECT_EQ(errorOf("K\x01K\x02.", small),
        "compiled_module: the pickle is 5 bytes, more than the limit of 4 (Limits::maxBytes)");
}

TEST(PickleReader, ProgressAndCancel)
{
    const std::string big = "\x8e" + le64(uint64_t(20) << 20) + std::string(size_t(20) << 20, 'x') + ".";
    int calls = 0;
    ReadOptions options;
    options.progress = [&](uint64_t done, uint64_t total) {
        ++calls;
        EXPECT_LE(done, total);
        return true;
    };
    EXPECT_TRUE(readPickle(big, "big.pkl", options).ok());
    EXPECT_GE(calls, 1);
    options.progress = [](uint64_t, uint64_t) { return false; };
    auto r = readPickle(big, "big.pkl", options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().toString(), "big.pkl: cancelled");
}

TEST(PickleRepr, CutsLongTextAndEscapes)
{
    const Document doc = readOk("values_p4.pkl");
    const std::string cut = repr(doc, doc.root, 30);
    EXPECT_EQ(cut, "{'ints': [0, 1, -1, 255, 256, ...");
    EXPECT_EQ(repr(doc, dictGet(doc, doc.root, "bytes"), 5), "[b'',...");
    // A lone surrogate (pickle writes str with surrogatepass) prints as Python escapes it.
    const Document sur = readBytes(std::string("\x8c\x03\xed\xa0\x80.", 6));
    EXPECT_EQ(reprOf(sur, sur.root), "'\\ud800'");
    EXPECT_EQ(reprOf(readBytes("\x8c\x01'."), 0), "\"'\"");
}
