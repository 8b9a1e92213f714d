// The marshal reader: CPython's r_object (Python/marshal.c, 3.8 to 3.13) over a byte string, into
// a Document of inert values. Every length is checked against the bytes left before anything is
// allocated; nesting, values and refs are limited (Limits); errors name the path and the offset of
// the value being read.
#include "engine/marshal/marshal_reader.h"

#include "engine/core/file_io.h"
#include "engine/core/py_value.h"
#include "engine/core/text_codec.h"
#include "engine/marshal/marshal_format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>

namespace engine::marshal {

using namespace detail;

namespace {

constexpr uint8_t kFlagRef = 0x80;
/// What readObject returns for TYPE_NULL (never stored in the document).
constexpr uint32_t kNullId = UINT32_MAX - 1;

class Reader {
public:
    Reader(std::string_view in, const std::string& path, const Limits& limits)
        : m_in(in)
        , m_path(path)
        , m_limits(limits)
    {
    }

    Result<Document> run()
    {
        if (m_in.empty())
            return makeError(ErrorCode::ParseError, "empty input: no marshal data", m_path);
        uint32_t root = kNone;
        if (!readObject(root))
            return *m_error;
        if (root == kNullId)
            return makeError(ErrorCode::ParseError, "NULL object in marshal data for object", context(0));
        m_doc.root = root;
        if (m_pos < m_in.size())
            m_doc.warnings.push_back("offset " + std::to_string(m_pos) + ": " + std::to_string(m_in.size() - m_pos)
                + " bytes after the value ignored (marshal.loads ignores them too)");
        return std::move(m_doc);
    }

private:
    struct Ref {
        uint32_t id;
        bool ready;
    };
    /// What a failed trial of a code-object layout rolls back.
    struct Snapshot {
        size_t pos, values, codes, refs, warnings;
        std::array<uint32_t, 5> singletons;
    };

    std::string_view m_in;
    size_t m_pos = 0;
    const std::string& m_path;
    const Limits& m_limits;
    Document m_doc;
    std::vector<Ref> m_refs;
    uint32_t m_depth = 0;
    bool m_layoutKnown = false;
    std::optional<Error> m_error;
    uint64_t m_errorReached = 0; ///< how far the input was read when the error was found
    /// None, False, True, StopIteration, Ellipsis: one value each, made when first met.
    std::array<uint32_t, 5> m_singletons { kNone, kNone, kNone, kNone, kNone };

    std::string context(uint64_t at) const { return m_path + ": offset " + std::to_string(at); }

    [[gnu::noinline]] bool fail(uint64_t at, std::string message)
    {
        m_error = makeError(ErrorCode::ParseError, std::move(message), context(at));
        m_errorReached = m_pos;
        return false;
    }

    size_t left() const { return m_in.size() - m_pos; }

    [[gnu::noinline]] bool need(uint64_t at, const char* what, uint64_t n)
    {
        if (left() >= n)
            return true;
        return fail(at,
            std::string("truncated ") + what + " (needs " + std::to_string(n) + " bytes, " + std::to_string(left())
                + " left)");
    }

    uint8_t byteAt(size_t i) const { return static_cast<unsigned char>(m_in[i]); }

    uint32_t le32()
    {
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k)
            v |= uint32_t(byteAt(m_pos + size_t(k))) << (8 * k);
        m_pos += 4;
        return v;
    }

    uint64_t le64()
    {
        const uint64_t lo = le32();
        return lo | (uint64_t(le32()) << 32);
    }

    double leDouble()
    {
        const uint64_t bits = le64();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    }

    bool readInt32(uint64_t at, const char* what, int32_t& out)
    {
        if (!need(at, what, 4))
            return false;
        out = int32_t(le32());
        return true;
    }

    /// A count of items (r_long, then marshal's range check): an error when the items could not fit
    /// the bytes left at `minBytesPerItem` each.
    [[gnu::noinline]] bool readSize(uint64_t at, const char* what, uint64_t minBytesPerItem, uint32_t& out)
    {
        int32_t n;
        if (!readInt32(at, what, n))
            return false;
        if (n < 0)
            return fail(at, std::string(what) + " with a negative size " + std::to_string(n));
        if (uint64_t(n) * minBytesPerItem > left())
            return fail(at,
                std::string("truncated ") + what + " (needs " + std::to_string(uint64_t(n) * minBytesPerItem)
                    + " bytes, " + std::to_string(left()) + " left)");
        out = uint32_t(n);
        return true;
    }

    [[gnu::noinline]] bool addValue(Value v, uint32_t& id, uint64_t at)
    {
        if (m_doc.values.size() >= std::min<uint64_t>(m_limits.maxValues, kNullId))
            return fail(at, "more than " + std::to_string(m_limits.maxValues) + " values (Limits::maxValues)");
        id = uint32_t(m_doc.values.size());
        m_doc.values.push_back(std::move(v));
        return true;
    }

    [[gnu::noinline]] bool newValue(Kind kind, uint32_t& id, uint64_t at)
    {
        Value v;
        v.kind = kind;
        return addValue(std::move(v), id, at);
    }

    [[gnu::noinline]] bool singleton(size_t slot, Kind kind, int64_t integer, uint32_t& id, uint64_t at)
    {
        if (m_singletons[slot] == kNone) {
            Value v;
            v.kind = kind;
            v.integer = integer;
            if (!addValue(std::move(v), m_singletons[slot], at))
                return false;
        }
        id = m_singletons[slot];
        return true;
    }

    /// R_REF: the value is registered as it is made (containers before their items).
    [[gnu::noinline]] bool addRef(bool flag, uint32_t id, bool ready, uint64_t at, size_t* index = nullptr)
    {
        if (!flag)
            return true;
        if (m_refs.size() >= m_limits.maxRefs || m_refs.size() >= 0x7ffffffe)
            return fail(at, "more than " + std::to_string(m_limits.maxRefs) + " refs (Limits::maxRefs)");
        if (index)
            *index = m_refs.size();
        m_refs.push_back({ id, ready });
        return true;
    }

    // The reader recurses once per nesting level (readObject, readObjectAt, then readSequence,
    // readDict or readCode and its fields): those frames are kept small, everything else (leaf
    // values, error messages) lives in functions that are not inlined into them, so that 2000
    // levels fit a thread's stack even in a sanitizer build.
    bool readObject(uint32_t& id)
    {
        const uint64_t at = m_pos;
        if (m_pos >= m_in.size())
            return failAt(at, Failure::Eof);
        if (m_depth >= m_limits.maxDepth)
            return failAt(at, Failure::Depth);
        ++m_depth;
        const bool ok = readObjectAt(at, id);
        --m_depth;
        return ok;
    }

    bool readObjectAt(uint64_t at, uint32_t& id)
    {
        const uint8_t code = byteAt(m_pos++);
        const bool flag = code & kFlagRef;
        const uint8_t type = code & uint8_t(~kFlagRef);
        switch (type) {
        case ')':
        case '(':
        case '[':
        case '<':
        case '>':
            return readSequence(at, type, flag, id);
        case '{':
            return readDict(at, flag, id);
        case 'c':
            return readCode(at, flag, id);
        default:
            return readLeaf(at, code, id);
        }
    }

    enum class Failure { Eof, Depth };

    [[gnu::noinline]] bool failAt(uint64_t at, Failure what)
    {
        if (what == Failure::Eof)
            return fail(at, "truncated: the input ends where a value should start");
        return fail(
            at, "values nest more than " + std::to_string(m_limits.maxDepth) + " levels deep (Limits::maxDepth)");
    }

    /// Everything but containers and code objects.
    [[gnu::noinline]] bool readLeaf(uint64_t at, uint8_t code, uint32_t& id)
    {
        const bool flag = code & kFlagRef;
        const uint8_t type = code & uint8_t(~kFlagRef);
        const char* name = typeName(type);
        switch (type) {
        case '0':
            id = kNullId;
            return true;
        case 'N':
            return singleton(0, Kind::None, 0, id, at);
        case 'F':
            return singleton(1, Kind::Bool, 0, id, at);
        case 'T':
            return singleton(2, Kind::Bool, 1, id, at);
        case 'S':
            return singleton(3, Kind::StopIteration, 0, id, at);
        case '.':
            return singleton(4, Kind::Ellipsis, 0, id, at);
        case 'i': {
            int32_t n;
            if (!readInt32(at, name, n))
                return false;
            return addScalar(Kind::Int, n, flag, id, at);
        }
        case 'I': {
            if (!need(at, name, 8))
                return false;
            return addScalar(Kind::Int, int64_t(le64()), flag, id, at);
        }
        case 'l':
            return readLong(at, flag, id);
        case 'f':
        case 'x':
            return readTextFloats(at, type, flag, id);
        case 'g':
        case 'y': {
            const bool complex = type == 'y';
            if (!need(at, name, complex ? 16 : 8))
                return false;
            Value v;
            v.kind = complex ? Kind::Complex : Kind::Float;
            v.real = leDouble();
            if (complex)
                v.imag = leDouble();
            return addValue(std::move(v), id, at) && addRef(flag, id, true, at);
        }
        case 's':
        case 'u':
        case 't':
        case 'a':
        case 'A':
        case 'z':
        case 'Z':
            return readString(at, type, flag, id);
        case 'r': {
            int32_t n;
            if (!readInt32(at, name, n))
                return false;
            if (n < 0 || size_t(n) >= m_refs.size())
                return fail(at,
                    "TYPE_REF to ref " + std::to_string(n) + ", but only " + std::to_string(m_refs.size())
                        + " are defined (bad marshal data: invalid reference)");
            if (!m_refs[size_t(n)].ready)
                return fail(at,
                    "TYPE_REF to ref " + std::to_string(n)
                        + ", a code object or frozenset still being read (bad marshal data: invalid reference)");
            id = m_refs[size_t(n)].id;
            return true;
        }
        case '?':
            return fail(at, "TYPE_UNKNOWN: marshal.dumps met an object it cannot write (bad marshal data)");
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", code);
            return fail(at, std::string("unknown type code ") + hex + " (not marshal data, or a corrupt one)");
        }
        }
    }

    [[gnu::noinline]] bool addScalar(Kind kind, int64_t integer, bool flag, uint32_t& id, uint64_t at)
    {
        Value v;
        v.kind = kind;
        v.integer = integer;
        return addValue(std::move(v), id, at) && addRef(flag, id, true, at);
    }

    [[gnu::noinline]] bool readLong(uint64_t at, bool flag, uint32_t& id)
    {
        int32_t n;
        if (!readInt32(at, "TYPE_LONG", n))
            return false;
        const uint64_t count = n < 0 ? uint64_t(-int64_t(n)) : uint64_t(n);
        if (!need(at, "TYPE_LONG", count * 2))
            return false;
        std::vector<uint16_t> digits(static_cast<size_t>(count));
        for (size_t k = 0; k < count; ++k) {
            const uint16_t d = uint16_t(byteAt(m_pos) | (byteAt(m_pos + 1) << 8));
            m_pos += 2;
            if (d >= 0x8000)
                return fail(at, "TYPE_LONG digit " + std::to_string(k) + " out of range (bad marshal data)");
            digits[k] = d;
        }
        if (count > 0 && digits.back() == 0)
            return fail(at, "TYPE_LONG with a zero top digit (bad marshal data: unnormalized long data)");
        const bool negative = n < 0;
        // Up to four digits (60 bits) always fit an int64; five fit when the top one is small.
        uint64_t bits = 0;
        if (count > 0) {
            bits = (count - 1) * 15;
            for (uint16_t top = digits.back(); top; top >>= 1)
                ++bits;
        }
        if (bits <= 63) {
            uint64_t mag = 0;
            for (size_t k = count; k-- > 0;)
                mag = (mag << 15) | digits[k];
            return addScalar(Kind::Int, negative ? -int64_t(mag) : int64_t(mag), flag, id, at);
        }
        // log10(2) = 0.30103: more bits than the digit limit allows (plus a margin) is refused
        // before the quadratic conversion.
        const uint64_t maxDigits = m_limits.maxIntDigits;
        if (bits > (maxDigits + 1) * 10 / 3 + 15)
            return fail(at,
                "TYPE_LONG of " + std::to_string(bits) + " bits has more than " + std::to_string(maxDigits)
                    + " decimal digits (Limits::maxIntDigits)");
        std::string text = decimalOf(std::move(digits));
        if (text.size() > maxDigits)
            return fail(at,
                "TYPE_LONG has " + std::to_string(text.size()) + " decimal digits, more than "
                    + std::to_string(maxDigits) + " (Limits::maxIntDigits)");
        if (bits == 64 && negative && text == "9223372036854775808")
            return addScalar(Kind::Int, INT64_MIN, flag, id, at);
        Value v;
        v.kind = Kind::BigInt;
        v.text = (negative ? "-" : "") + text;
        return addValue(std::move(v), id, at) && addRef(flag, id, true, at);
    }

    bool readFloatText(uint64_t at, const char* name, double& out)
    {
        if (!need(at, name, 1))
            return false;
        const size_t n = byteAt(m_pos++);
        if (!need(at, name, n))
            return false;
        const std::string_view text = m_in.substr(m_pos, n);
        m_pos += n;
        if (!parsePyFloat(text, out))
            return fail(at, std::string(name) + " text '" + std::string(text.substr(0, 40)) + "' is not a number");
        return true;
    }

    [[gnu::noinline]] bool readTextFloats(uint64_t at, uint8_t type, bool flag, uint32_t& id)
    {
        Value v;
        v.kind = type == 'x' ? Kind::Complex : Kind::Float;
        if (!readFloatText(at, typeName(type), v.real))
            return false;
        if (type == 'x' && !readFloatText(at, typeName(type), v.imag))
            return false;
        return addValue(std::move(v), id, at) && addRef(flag, id, true, at);
    }

    [[gnu::noinline]] bool readString(uint64_t at, uint8_t type, bool flag, uint32_t& id)
    {
        const char* name = typeName(type);
        uint32_t n = 0;
        if (type == 'z' || type == 'Z') {
            if (!need(at, name, 1))
                return false;
            n = byteAt(m_pos++);
        } else {
            int32_t size;
            if (!readInt32(at, name, size))
                return false;
            if (size < 0)
                return fail(at, std::string(name) + " with a negative size " + std::to_string(size));
            n = uint32_t(size);
        }
        if (!need(at, name, n))
            return false;
        const std::string_view raw = m_in.substr(m_pos, n);
        m_pos += n;
        Value v;
        if (type == 's') {
            v.kind = Kind::Bytes;
            v.text = std::string(raw);
        } else if (type == 'u' || type == 't') {
            const size_t bad = badUtf8Index(raw);
            if (bad != std::string_view::npos)
                return fail(at,
                    std::string(name) + " string is not valid UTF-8 (byte " + std::to_string(bad) + " of "
                        + std::to_string(n) + ")");
            v.kind = Kind::Str;
            v.text = std::string(raw);
        } else {
            v.kind = Kind::Str; // marshal reads the "ASCII" forms as Latin-1
            v.text = latin1ToUtf8(raw);
        }
        return addValue(std::move(v), id, at) && addRef(flag, id, true, at);
    }

    [[gnu::noinline]] bool readSequence(uint64_t at, uint8_t type, bool flag, uint32_t& id)
    {
        const char* name = typeName(type);
        uint32_t n = 0;
        if (type == ')') {
            if (!need(at, name, 1))
                return false;
            n = byteAt(m_pos++);
            if (!need(at, name, n))
                return false;
        } else if (!readSize(at, name, 1, n)) {
            return false;
        }
        const Kind kind = type == '[' ? Kind::List
            : type == '<'             ? Kind::Set
            : type == '>'             ? Kind::FrozenSet
                                      : Kind::Tuple;
        if (!newValue(kind, id, at))
            return false;
        // Tuples, lists and sets are registered before their items (a ref inside them makes a
        // cycle, as in CPython); a frozenset only once complete (r_ref_reserve).
        const bool frozen = type == '>' && n > 0;
        size_t refIndex = 0;
        if (!addRef(flag, id, !frozen, at, &refIndex))
            return false;
        std::vector<uint32_t> items;
        items.reserve(n);
        for (uint32_t k = 0; k < n; ++k) {
            uint32_t item;
            if (!readObject(item))
                return false;
            if (item == kNullId)
                return failNullItem(at, kind, k);
            items.push_back(item);
        }
        m_doc.values[id].items = std::move(items);
        if (frozen && flag)
            m_refs[refIndex].ready = true;
        return true;
    }

    [[gnu::noinline]] bool failNullItem(uint64_t at, Kind kind, uint32_t k)
    {
        const char* what = kind == Kind::List ? "list" : kind == Kind::Tuple ? "tuple" : "set";
        return fail(at, std::string("NULL object in marshal data for ") + what + " (item " + std::to_string(k) + ")");
    }

    [[gnu::noinline]] void warnNullValue(uint64_t at)
    {
        m_doc.warnings.push_back("offset " + std::to_string(at) + ": TYPE_DICT ends at a NULL value");
    }

    [[gnu::noinline]] bool readDict(uint64_t at, bool flag, uint32_t& id)
    {
        if (!newValue(Kind::Dict, id, at) || !addRef(flag, id, true, at))
            return false;
        std::vector<uint32_t> items;
        for (;;) {
            uint32_t key, value;
            if (!readObject(key))
                return false;
            if (key == kNullId)
                break;
            if (!readObject(value))
                return false;
            if (value == kNullId) { // marshal.c ends the dict here too, dropping the key
                warnNullValue(at);
                break;
            }
            items.push_back(key);
            items.push_back(value);
        }
        m_doc.values[id].items = std::move(items);
        return true;
    }

    // ---- code objects -------------------------------------------------------------------------

    Snapshot snapshot() const
    {
        return { m_pos, m_doc.values.size(), m_doc.codes.size(), m_refs.size(), m_doc.warnings.size(), m_singletons };
    }

    void restore(const Snapshot& s)
    {
        m_pos = s.pos;
        m_doc.values.resize(s.values);
        m_doc.codes.resize(s.codes);
        m_refs.resize(s.refs);
        m_doc.warnings.resize(s.warnings);
        m_singletons = s.singletons;
    }

    /// The first code object decides the layout: the one whose field sequence reads (all nested
    /// code objects share it). The likelier one is tried first: co_code, a TYPE_STRING, follows
    /// five int32s in 3.11+ and six before.
    [[gnu::noinline]] bool readCode(uint64_t at, bool flag, uint32_t& id)
    {
        if (m_layoutKnown)
            return readCodeAs(m_doc.layout, at, flag, id);
        return readFirstCode(at, flag, id);
    }

    [[gnu::noinline]] bool readFirstCode(uint64_t at, bool flag, uint32_t& id)
    {
        const auto isBytesType = [&](size_t i) { return i < m_in.size() && (byteAt(i) & 0x7F) == 's'; };
        const CodeLayout first = isBytesType(size_t(at) + 1 + 20) || !isBytesType(size_t(at) + 1 + 24)
            ? CodeLayout::Py311
            : CodeLayout::Py38;
        const CodeLayout second = first == CodeLayout::Py311 ? CodeLayout::Py38 : CodeLayout::Py311;
        const Snapshot s = snapshot();
        m_layoutKnown = true;
        m_doc.layout = first;
        m_doc.hasCode = true;
        if (readCodeAs(first, at, flag, id))
            return true;
        const Error firstError = *m_error;
        const uint64_t firstReached = m_errorReached;
        restore(s);
        m_doc.layout = second;
        if (readCodeAs(second, at, flag, id))
            return true;
        // Neither reads: report the layout that got further.
        if (firstReached >= m_errorReached) {
            m_error = firstError;
            m_errorReached = firstReached;
            m_doc.layout = first;
        }
        return false;
    }

    [[gnu::noinline]] bool readField(const char* field, Kind want, uint32_t& id)
    {
        const uint64_t at = m_pos;
        if (!readObject(id))
            return false;
        if (id == kNullId)
            return failField(at, field, Kind::Null, want);
        const Kind got = m_doc.values[id].kind;
        if (got != want)
            return failField(at, field, got, want);
        return true;
    }

    [[gnu::noinline]] bool failField(uint64_t at, const char* field, Kind got, Kind want)
    {
        if (got == Kind::Null)
            return fail(at, std::string("code object field ") + field + " is NULL");
        return fail(at, std::string("code object field ") + field + " is " + kindName(got) + ", not " + kindName(want));
    }

    [[gnu::noinline]] bool readStrField(const char* field, std::string& out)
    {
        uint32_t id;
        if (!readField(field, Kind::Str, id))
            return false;
        out = m_doc.values[id].text;
        return true;
    }

    [[gnu::noinline]] bool readBytesField(const char* field, std::string& out)
    {
        uint32_t id;
        if (!readField(field, Kind::Bytes, id))
            return false;
        out = m_doc.values[id].text;
        return true;
    }

    [[gnu::noinline]] bool readNamesField(const char* field, std::vector<std::string>& out)
    {
        const uint64_t at = m_pos;
        uint32_t id;
        if (!readField(field, Kind::Tuple, id))
            return false;
        return namesOf(at, field, id, out);
    }

    [[gnu::noinline]] bool namesOf(uint64_t at, const char* field, uint32_t id, std::vector<std::string>& out)
    {
        const std::vector<uint32_t>& items = m_doc.values[id].items;
        out.clear();
        out.reserve(items.size());
        for (size_t k = 0; k < items.size(); ++k) {
            const Value& item = m_doc.values[items[k]];
            if (item.kind != Kind::Str)
                return fail(at,
                    std::string("non-string found in code slot ") + field + " (item " + std::to_string(k) + " is "
                        + kindName(item.kind) + ")");
            out.push_back(item.text);
        }
        return true;
    }

    /// The int32 fields of a code object, in the order of the layout.
    struct CodeCounts {
        int32_t argCount = 0, posOnly = 0, kwOnly = 0, nLocals = 0, stackSize = 0, flags = 0, firstLine = 0;
    };

    [[gnu::noinline]] bool readCodeAs(CodeLayout layout, uint64_t at, bool flag, uint32_t& id)
    {
        if (!newValue(Kind::Code, id, at))
            return false;
        size_t refIndex = 0;
        if (!addRef(flag, id, false, at, &refIndex))
            return false;
        const bool py311 = layout == CodeLayout::Py311;
        auto c = std::make_unique<Code>(); // on the heap: this frame is one of each nesting level
        c->layout = layout;
        c->offset = at;
        CodeCounts n;
        if (!readInt32(at, "TYPE_CODE", n.argCount) || !readInt32(at, "TYPE_CODE", n.posOnly)
            || !readInt32(at, "TYPE_CODE", n.kwOnly) || (!py311 && !readInt32(at, "TYPE_CODE", n.nLocals))
            || !readInt32(at, "TYPE_CODE", n.stackSize) || !readInt32(at, "TYPE_CODE", n.flags))
            return false;
        uint32_t constsId;
        if (!readBytesField("co_code", c->bytecode) || !readField("co_consts", Kind::Tuple, constsId)
            || !readNamesField("co_names", c->names))
            return false;
        if (py311) {
            if (!readNamesField("co_localsplusnames", c->localsPlusNames)
                || !readBytesField("co_localspluskinds", c->localsPlusKinds))
                return false;
        } else if (!readNamesField("co_varnames", c->varNames) || !readNamesField("co_freevars", c->freeVars)
            || !readNamesField("co_cellvars", c->cellVars)) {
            return false;
        }
        if (!readStrField("co_filename", c->filename) || !readStrField("co_name", c->name))
            return false;
        if (py311 && !readStrField("co_qualname", c->qualname))
            return false;
        if (!readInt32(at, "TYPE_CODE", n.firstLine)
            || !readBytesField(py311 ? "co_linetable" : "co_lnotab", c->lineTable))
            return false;
        if (py311 && !readBytesField("co_exceptiontable", c->exceptionTable))
            return false;
        if (!finishCode(*c, n, constsId, at, id))
            return false;
        if (flag)
            m_refs[refIndex].ready = true;
        return true;
    }

    /// What PyCode_New / _PyCode_Validate refuse, then the code object into the document.
    [[gnu::noinline]] bool finishCode(Code& c, CodeCounts n, uint32_t constsId, uint64_t at, uint32_t id)
    {
        const bool py311 = c.layout == CodeLayout::Py311;
        if (n.argCount < n.posOnly || n.posOnly < 0 || n.kwOnly < 0 || n.nLocals < 0 || n.stackSize < 0 || n.flags < 0)
            return fail(at,
                "bad code object: counts out of range (argcount " + std::to_string(n.argCount) + ", posonlyargcount "
                    + std::to_string(n.posOnly) + ", kwonlyargcount " + std::to_string(n.kwOnly) + ", nlocals "
                    + std::to_string(n.nLocals) + ", stacksize " + std::to_string(n.stackSize) + ", flags "
                    + std::to_string(n.flags) + ")");
        const uint64_t totalArgs = uint64_t(n.argCount) + uint64_t(n.kwOnly) + ((n.flags & kCoVarargs) ? 1 : 0)
            + ((n.flags & kCoVarkeywords) ? 1 : 0);
        if (py311) {
            if (c.bytecode.size() % 2)
                return fail(at, "bad code object: co_code has an odd length (code: co_code is malformed)");
            if (c.localsPlusNames.size() != c.localsPlusKinds.size())
                return fail(at,
                    "bad code object: " + std::to_string(c.localsPlusNames.size()) + " co_localsplusnames but "
                        + std::to_string(c.localsPlusKinds.size()) + " co_localspluskinds");
            for (size_t k = 0; k < c.localsPlusNames.size(); ++k) {
                const auto kind = static_cast<uint8_t>(c.localsPlusKinds[k]);
                if (kind & kFastLocal)
                    c.varNames.push_back(c.localsPlusNames[k]);
                if (kind & kFastCell)
                    c.cellVars.push_back(c.localsPlusNames[k]);
                if (kind & kFastFree)
                    c.freeVars.push_back(c.localsPlusNames[k]);
            }
            n.nLocals = int32_t(c.varNames.size());
            if (totalArgs > uint64_t(n.nLocals))
                return fail(at, "bad code object: co_varnames is too small for its arguments");
        } else {
            if (totalArgs > c.varNames.size())
                return fail(at, "bad code object: co_varnames is too small for its arguments");
            c.qualname = c.name;
        }
        c.argCount = n.argCount;
        c.posOnlyArgCount = n.posOnly;
        c.kwOnlyArgCount = n.kwOnly;
        c.nLocals = n.nLocals;
        c.stackSize = n.stackSize;
        c.flags = uint32_t(n.flags);
        c.firstLineNo = n.firstLine;
        c.consts = m_doc.values[constsId].items;
        for (uint32_t k : c.consts)
            if (m_doc.values[k].kind == Kind::Code)
                c.nested.push_back(m_doc.values[k].code);
        m_doc.values[id].code = uint32_t(m_doc.codes.size());
        m_doc.codes.push_back(std::move(c));
        return true;
    }
};

} // namespace

Result<Document> readMarshal(std::string_view bytes, const std::string& path, const Limits& limits)
{
    if (bytes.size() > limits.maxBytes)
        return makeError(ErrorCode::InvalidArgument,
            "the marshal data is " + std::to_string(bytes.size()) + " bytes, more than the limit of "
                + std::to_string(limits.maxBytes) + " (Limits::maxBytes)",
            path);
    try {
        return Reader(bytes, path, limits).run();
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::InvalidArgument,
            "out of memory reading marshal data of " + std::to_string(bytes.size()) + " bytes", path);
    } catch (const std::length_error&) {
        return makeError(ErrorCode::InvalidArgument,
            "out of memory reading marshal data of " + std::to_string(bytes.size()) + " bytes", path);
    }
}

Result<Document> readMarshalFile(const std::string& path, const Limits& limits)
{
    auto bytes = readTextFile(path, limits.maxBytes, "marshal files");
    if (!bytes.ok())
        return bytes.error();
    return readMarshal(*bytes, path, limits);
}

} // namespace engine::marshal
