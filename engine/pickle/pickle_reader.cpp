// The opcode dispatch, the end of a read (depth, cycles, compaction) and the public entry points.
// The machine itself (values, containers, memo) is in pickle_vm.cpp.
#include "engine/pickle/pickle_reader.h"

#include "engine/core/file_io.h"
#include "engine/core/py_value.h"
#include "engine/pickle/pickle_vm.h"

#include <charconv>
#include <cmath>
#include <new>
#include <stdexcept>

namespace engine::pickle {

namespace detail {

namespace {

constexpr uint64_t kProgressStep = uint64_t(16) << 20;

} // namespace

Result<Document> Reader::run()
{
    if (m_p == m_end)
        return makeError(ErrorCode::ParseError, "empty input: no pickle", m_path);
    m_nextProgress = m_begin + std::min<uint64_t>(kProgressStep, left());
    // Room for what a memory snapshot needs (about a value per 10 input bytes, half of it string
    // bytes), so that the arrays are not copied as they grow. Untouched capacity costs address
    // space only.
    const size_t size = size_t(left());
    m_doc.values.reserve(std::min<size_t>(size / 8, size_t(m_limits.maxValues)));
    m_doc.children.reserve(size / 4);
    m_doc.text.reserve(size / 2);
    for (;;) {
        if (m_p == m_end) {
            m_opOffset = offset();
            fail("truncated: the input ends before STOP");
            return *m_error;
        }
        if (m_p >= m_nextProgress && m_options.progress) {
            if (!m_options.progress(offset(), uint64_t(m_end - m_begin)))
                return makeError(ErrorCode::InvalidArgument, "cancelled", m_path);
            m_nextProgress = m_p + std::min<uint64_t>(kProgressStep, left());
        }
        m_opOffset = offset();
        m_op = *m_p++;
        if (!m_sawProto) // protocols 0 and 1 have no PROTO: the opcodes tell
            m_opProtocol = std::max(m_opProtocol, opcodeProtocol(m_op));
        if (!step())
            return *m_error;
        if (m_op == STOP)
            break;
    }
    if (!finish())
        return *m_error;
    return std::move(m_doc);
}

bool Reader::step()
{
    uint64_t n = 0;
    uint32_t a = 0, b = 0, c = 0;
    std::string_view s;
    switch (m_op) {
    case MARK:
        if (m_stack.size() + m_marks.size() >= m_limits.maxStack)
            return fail("the stack grows beyond " + std::to_string(m_limits.maxStack) + " entries (Limits::maxStack)");
        m_marks.push_back(m_stack.size());
        return true;
    case STOP:
        if (!pop(m_doc.root))
            return false;
        m_doc.stopOffset = m_opOffset;
        return true;
    case POP:
        // _pickle.c: a POP right after MARK drops the mark.
        if (!m_marks.empty() && m_marks.back() == m_stack.size()) {
            m_marks.pop_back();
            return true;
        }
        return pop(a);
    case POP_MARK: {
        size_t mark = 0;
        if (!popMark(mark))
            return false;
        m_stack.resize(mark);
        return true;
    }
    case DUP:
        return top(a) && push(a);

    case NONE:
        return pushSingleton(m_none, Kind::None, 0);
    case NEWTRUE:
        return pushSingleton(m_true, Kind::Bool, 1);
    case NEWFALSE:
        return pushSingleton(m_false, Kind::Bool, 0);
    case BININT:
        return readFixed(4, n) && pushInt(int32_t(uint32_t(n)));
    case BININT1:
        return readFixed(1, n) && pushInt(int64_t(n));
    case BININT2:
        return readFixed(2, n) && pushInt(int64_t(n));
    case LONG1:
        return readFixed(1, n) && readBytes(n, s) && pushBigInt(s);
    case LONG4:
        if (!readFixed(4, n))
            return false;
        if (int32_t(uint32_t(n)) < 0)
            return fail("LONG4 with a negative byte count");
        return readBytes(n, s) && pushBigInt(s);
    case INT:
    case LONG:
        return readLine(s) && pushDecimal(s, m_op == INT);
    case BINFLOAT: {
        if (!need(8))
            return false;
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k)
            bits = (bits << 8) | m_p[k]; // big-endian
        m_p += 8;
        Value v;
        v.kind = Kind::Float;
        v.data = bits;
        return addPush(v);
    }
    case FLOAT: {
        double d;
        if (!readLine(s))
            return false;
        if (!parsePyFloat(trimSpaces(s), d))
            return fail("FLOAT argument '" + std::string(s.substr(0, 40)) + "' is not a number");
        Value v;
        v.kind = Kind::Float;
        std::memcpy(&v.data, &d, sizeof d);
        return addPush(v);
    }

    case STRING:
        return opString();
    case BINSTRING:
        if (!readFixed(4, n))
            return false;
        if (int32_t(uint32_t(n)) < 0)
            return fail("BINSTRING with a negative byte count");
        return readBytes(n, s) && pushPy2String(s);
    case SHORT_BINSTRING:
        return readFixed(1, n) && readBytes(n, s) && pushPy2String(s);
    case UNICODE: {
        std::string decoded, error;
        if (!readLine(s))
            return false;
        if (!decodeRawUnicodeEscape(s, decoded, error))
            return fail("UNICODE argument: " + error);
        return pushText(Kind::Str, decoded);
    }
    case SHORT_BINUNICODE:
        return readFixed(1, n) && readBytes(n, s) && pushUnicode(s);
    case BINUNICODE:
        return readFixed(4, n) && readBytes(n, s) && pushUnicode(s);
    case BINUNICODE8:
        return readFixed(8, n) && readBytes(n, s) && pushUnicode(s);
    case SHORT_BINBYTES:
        return readFixed(1, n) && readBytes(n, s) && pushText(Kind::Bytes, s);
    case BINBYTES:
        return readFixed(4, n) && readBytes(n, s) && pushText(Kind::Bytes, s);
    case BINBYTES8:
        return readFixed(8, n) && readBytes(n, s) && pushText(Kind::Bytes, s);
    case BYTEARRAY8:
        return readFixed(8, n) && readBytes(n, s) && pushText(Kind::ByteArray, s);
    case NEXT_BUFFER:
    case READONLY_BUFFER:
        return fail(op() + ": out-of-band buffers (pickle protocol 5 with buffer_callback) are not supported");

    case EMPTY_TUPLE:
        return collapseTop(Kind::Tuple, 0);
    case TUPLE1:
        return collapseTop(Kind::Tuple, 1);
    case TUPLE2:
        return collapseTop(Kind::Tuple, 2);
    case TUPLE3:
        return collapseTop(Kind::Tuple, 3);
    case TUPLE:
        return collapseMark(Kind::Tuple);
    case EMPTY_LIST:
        return collapseTop(Kind::List, 0);
    case LIST:
        return collapseMark(Kind::List);
    case EMPTY_DICT:
        return collapseTop(Kind::Dict, 0);
    case DICT:
        return collapseMark(Kind::Dict);
    case EMPTY_SET:
        return collapseTop(Kind::Set, 0);
    case FROZENSET:
        return collapseMark(Kind::FrozenSet);
    case APPEND:
        return pop(a) && top(b) && target(Kind::List, kObjListItems, b) && appendChildren(b, &a, 1);
    case SETITEM: {
        uint32_t pair[2];
        return pop(pair[1]) && pop(pair[0]) && top(b) && target(Kind::Dict, kObjDictItems, b)
            && appendChildren(b, pair, 2);
    }
    case APPENDS:
    case SETITEMS:
    case ADDITEMS: {
        size_t mark = 0;
        if (!popMark(mark))
            return false;
        if (m_op == APPENDS)
            return addToTarget(Kind::List, kObjListItems, mark);
        return m_op == SETITEMS ? addToTarget(Kind::Dict, kObjDictItems, mark)
                                : addToTarget(Kind::Set, kObjListItems, mark);
    }

    case PUT:
        return lineIndex(n) && memoPut(n);
    case BINPUT:
        return readFixed(1, n) && memoPut(n);
    case LONG_BINPUT:
        return readFixed(4, n) && memoPut(n);
    case MEMOIZE:
        return memoPut(m_memoCount);
    case GET:
        return lineIndex(n) && memoGet(n);
    case BINGET:
        return readFixed(1, n) && memoGet(n);
    case LONG_BINGET:
        return readFixed(4, n) && memoGet(n);

    case GLOBAL: {
        std::string_view module, name;
        return readUtf8Line(module) && readUtf8Line(name) && pushGlobal(module, name, a);
    }
    case STACK_GLOBAL:
        if (!pop(b) || !pop(a))
            return false;
        if (m_doc.values[a].kind != Kind::Str || m_doc.values[b].kind != Kind::Str)
            return fail("STACK_GLOBAL needs two strings (module, name), not " + describe(m_doc.values[a].kind) + " and "
                + describe(m_doc.values[b].kind));
        return makeGlobal(a, b, c) && push(c);
    case INST:
        return opInst();
    case OBJ: {
        size_t mark = 0;
        if (!popMark(mark))
            return false;
        if (m_stack.size() == mark)
            return underflow();
        if (!addNode(Kind::Tuple, m_stack.data() + mark + 1, m_stack.size() - mark - 1, b))
            return false;
        a = m_stack[mark];
        m_stack.resize(mark);
        return newObject(ObjectHow::Obj, a, b, kNoValue);
    }
    case REDUCE:
        return pop(b) && pop(a) && requireKind(b, Kind::Tuple, "arguments")
            && newObject(ObjectHow::Reduce, a, b, kNoValue);
    case NEWOBJ:
        return pop(b) && pop(a) && requireKind(b, Kind::Tuple, "arguments")
            && newObject(ObjectHow::NewObj, a, b, kNoValue);
    case NEWOBJ_EX:
        return pop(c) && pop(b) && pop(a) && requireKind(b, Kind::Tuple, "arguments")
            && requireKind(c, Kind::Dict, "keyword arguments") && newObject(ObjectHow::NewObjEx, a, b, c);
    case BUILD:
        if (!pop(b) || !top(a))
            return false;
        if (m_doc.values[a].kind != Kind::Object)
            return fail("BUILD onto " + describe(m_doc.values[a].kind) + " (needs an object)");
        m_doc.children[m_doc.values[a].data + kObjState] = b;
        return true;
    case PERSID:
        if (!readLine(s))
            return false;
        if (!isAscii(s))
            return fail("PERSID argument is not ASCII");
        return addText(Kind::Str, s, a) && pushPersistentId(a);
    case BINPERSID:
        return pop(a) && pushPersistentId(a);
    case EXT1:
        return readFixed(1, n) && pushExtension(int64_t(n));
    case EXT2:
        return readFixed(2, n) && pushExtension(int64_t(n));
    case EXT4:
        return readFixed(4, n) && pushExtension(int32_t(uint32_t(n)));

    case PROTO:
        if (!readFixed(1, n))
            return false;
        if (n > 5)
            return fail("unsupported pickle protocol " + std::to_string(n));
        m_doc.protocol = int(n);
        m_sawProto = true;
        return true;
    case FRAME:
        // Frames only group opcodes for buffered reading; _pickle.c, too, checks nothing but that
        // the frame's bytes are there.
        if (!readFixed(8, n))
            return false;
        if (n > left())
            return fail(
                "FRAME of " + std::to_string(n) + " bytes, but only " + std::to_string(left()) + " bytes are left");
        return true;
    default:
        return fail("unknown opcode 0x" + std::string(1, "0123456789abcdef"[m_op >> 4])
            + std::string(1, "0123456789abcdef"[m_op & 15]) + " (not a pickle, or a corrupt one)");
    }
}

/// STRING (protocol 0): a quoted Python 2 str literal.
bool Reader::opString()
{
    std::string_view s;
    if (!readLine(s))
        return false;
    if (s.size() < 2 || s.front() != s.back() || (s.front() != '\'' && s.front() != '"'))
        return fail("STRING argument must be quoted");
    std::string decoded, error;
    if (!decodeStringEscape(s.substr(1, s.size() - 2), decoded, error))
        return fail("STRING argument: " + error);
    return pushPy2String(decoded);
}

/// INST (protocol 0): module and name lines, the arguments since the mark.
bool Reader::opInst()
{
    std::string_view module, name;
    size_t mark = 0;
    uint32_t cls, args;
    if (!readUtf8Line(module) || !readUtf8Line(name) || !popMark(mark))
        return false;
    if (!addNode(Kind::Tuple, m_stack.data() + mark, m_stack.size() - mark, args))
        return false;
    m_stack.resize(mark);
    if (!pushGlobal(module, name, cls))
        return false;
    m_stack.pop_back(); // the class is the object's, not the stack's
    return newObject(ObjectHow::Inst, cls, args, kNoValue);
}

bool Reader::pushPersistentId(uint32_t pid)
{
    uint32_t id;
    if (!addNode(Kind::PersistentId, &pid, 1, id))
        return false;
    const Value& v = m_doc.values[pid];
    std::string label = v.kind == Kind::Str ? repr(m_doc, pid, 80) : describe(v.kind);
    noteFinding(Finding::What::PersistentId, {}, std::move(label), id);
    return push(id);
}

bool Reader::pushExtension(int64_t code)
{
    if (code <= 0)
        return fail(op() + " specifies code <= 0");
    Value v;
    v.kind = Kind::Extension;
    v.data = uint64_t(code);
    uint32_t id;
    if (!add(v, id))
        return false;
    noteFinding(Finding::What::Extension, {}, std::to_string(code), id);
    return push(id);
}

bool Reader::finish()
{
    if (!m_sawProto)
        m_doc.protocol = std::min(m_opProtocol, 1);
    if (m_p != m_end)
        m_doc.warnings.push_back(
            { offset(), std::to_string(left()) + " bytes after STOP ignored (a second pickle, or garbage)" });
    if (!m_stack.empty() || !m_marks.empty())
        m_doc.warnings.push_back({ m_opOffset,
            std::to_string(m_stack.size()) + " values and " + std::to_string(m_marks.size())
                + " marks left on the stack at STOP" });
    // What only the stack and memo needed goes now; the document keeps its three arrays.
    m_stack = {};
    m_memo = {};
    m_sparseMemo = {};
    if (!measureDepth())
        return false;
    if (m_wasted > m_doc.children.size() / 4)
        compactChildren();
    return true;
}

/// Height of every value reachable from the root, iteratively (a depth bomb must not overflow
/// this stack either), in Value::height: 0 unvisited, kOnPath while on the walk's path, else
/// the height. A child on the path is a cycle's back edge: it sets hasCycles and is not counted.
bool Reader::measureDepth()
{
    constexpr uint16_t kOnPath = UINT16_MAX;
    const uint32_t maxDepth = std::min<uint32_t>(std::max<uint32_t>(m_limits.maxDepth, 1), 60000);
    auto& values = m_doc.values;
    const auto hasChildren = [&](uint32_t id) {
        const Kind k = values[id].kind;
        return values[id].size > 0
            && (k == Kind::Tuple || k == Kind::List || k == Kind::Dict || k == Kind::Set || k == Kind::FrozenSet
                || k == Kind::Global || k == Kind::Object || k == Kind::PersistentId);
    };
    struct Frame {
        uint32_t id;
        uint32_t next;
        uint16_t height;
    };
    std::vector<Frame> path;
    const auto enter = [&](uint32_t id) -> bool {
        if (!hasChildren(id)) {
            values[id].height = 1;
            return true;
        }
        if (path.size() >= maxDepth) {
            m_opOffset = m_doc.stopOffset;
            return fail("values nest more than " + std::to_string(maxDepth) + " levels deep (Limits::maxDepth)");
        }
        values[id].height = kOnPath;
        path.push_back({ id, 0, 1 });
        return true;
    };
    // The path is no longer than the longest chain, but a chain can be longer than any path (a
    // list of a0, a1 = [a0], a2 = [a1], ... meets each ai one level down): heights are checked too.
    const auto raise = [&](Frame& parent, uint16_t childHeight) -> bool {
        if (childHeight >= maxDepth) {
            m_opOffset = m_doc.stopOffset;
            return fail("values nest more than " + std::to_string(maxDepth) + " levels deep (Limits::maxDepth)");
        }
        parent.height = std::max<uint16_t>(parent.height, uint16_t(childHeight + 1));
        return true;
    };
    if (!enter(m_doc.root))
        return false;
    while (!path.empty()) {
        Frame& f = path.back();
        const Value& v = values[f.id];
        if (f.next < v.size) {
            const uint32_t child = m_doc.children[v.data + f.next++];
            if (child == kNoValue)
                continue;
            const uint16_t h = values[child].height;
            if (h == kOnPath) {
                m_doc.hasCycles = true;
            } else if (h != 0) {
                if (!raise(f, h))
                    return false;
            } else if (!enter(child)) {
                return false;
            }
            continue;
        }
        const Frame done = f;
        path.pop_back();
        values[done.id].height = done.height;
        if (!path.empty() && !raise(path.back(), done.height))
            return false;
    }
    m_doc.depth = values[m_doc.root].height;
    return true;
}

/// Rewrites Document::children without the places containers moved away from.
void Reader::compactChildren()
{
    std::vector<uint32_t> packed;
    packed.reserve(m_doc.children.size() - std::min<uint64_t>(m_wasted, m_doc.children.size()));
    for (Value& v : m_doc.values) {
        switch (v.kind) {
        case Kind::Tuple:
        case Kind::List:
        case Kind::Dict:
        case Kind::Set:
        case Kind::FrozenSet:
        case Kind::Global:
        case Kind::Object:
        case Kind::PersistentId: {
            const uint64_t first = packed.size();
            packed.insert(packed.end(), m_doc.children.begin() + std::ptrdiff_t(v.data),
                m_doc.children.begin() + std::ptrdiff_t(v.data + v.size));
            v.data = first;
            break;
        }
        default:
            break;
        }
    }
    m_doc.children = std::move(packed);
}

} // namespace detail

bool AllowList::allows(std::string_view module, std::string_view name) const
{
    for (const auto& [m, n] : classes)
        if (m == module && (n == name || n == "*"))
            return true;
    return false;
}

AllowList AllowList::torchair()
{
    const std::string m = "torchair.inference._cache_compiler";
    return AllowList { { { m, "ModelCacheMeta" }, { m, "CompiledFX" }, { m, "ModelCacheArtifact" } } };
}

AllowList AllowList::npugraphEx()
{
    const std::string m = "npugraph_ex.inference._cache_compiler";
    return AllowList { { { m, "ModelCacheMeta" }, { m, "CompiledFX" }, { m, "ModelCacheArtifact" } } };
}

Result<Document> readPickle(std::string_view bytes, const std::string& path, const ReadOptions& options)
{
    if (bytes.size() > options.limits.maxBytes)
        return makeError(ErrorCode::InvalidArgument,
            "the pickle is " + std::to_string(bytes.size()) + " bytes, more than the limit of "
                + std::to_string(options.limits.maxBytes) + " (Limits::maxBytes)",
            path);
    // Limits keep memory a small multiple of the input, but that may still be more than the
    // machine has: running out is an error, not a crash.
    try {
        return detail::Reader(bytes, path, options).run();
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::InvalidArgument,
            "out of memory reading a pickle of " + std::to_string(bytes.size()) + " bytes", path);
    } catch (const std::length_error&) {
        return makeError(ErrorCode::InvalidArgument,
            "out of memory reading a pickle of " + std::to_string(bytes.size()) + " bytes", path);
    }
}

Result<Document> readPickleFile(const std::string& path, const ReadOptions& options)
{
    auto bytes = readTextFile(path, options.limits.maxBytes, "pickles");
    if (!bytes.ok())
        return bytes.error();
    return readPickle(*bytes, path, options);
}

} // namespace engine::pickle
