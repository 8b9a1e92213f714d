#pragma once
/// The pickle virtual machine without its side effects (internal to engine/pickle): one pass over
/// the opcodes with CPython's stack, mark and memo rules (Modules/_pickle.c, which is what
/// pickle.load runs), building Values instead of objects. Every operand is bounds-checked before it
/// is read; every length is compared with what is left of the input before anything is allocated
/// for it. pickle_vm.cpp has the value, container, memo and class helpers; pickle_reader.cpp the
/// opcode dispatch and the checks at the end.
#include "engine/pickle/pickle_opcodes.h"
#include "engine/pickle/pickle_reader.h"
#include "engine/pickle/pickle_text.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace engine::pickle::detail {

constexpr uint32_t kMaxCount = UINT32_MAX - 1; ///< children, string bytes and values per uint32

/// "a list", "an int", ...
std::string describe(Kind kind);

inline uint64_t readLe(const unsigned char* p, int n)
{
    uint64_t v = 0;
    for (int k = n; k-- > 0;)
        v = (v << 8) | p[k];
    return v;
}

/// Spaces and tabs around a protocol-0 argument (Python's int() and float() allow them).
std::string_view trimSpaces(std::string_view s);

/// One read of one pickle. Every member that returns bool returns false after setting m_error,
/// which names the file and the offset of the opcode being run.
class Reader {
public:
    Reader(std::string_view in, const std::string& path, const ReadOptions& options)
        : m_begin(reinterpret_cast<const unsigned char*>(in.data()))
        , m_p(m_begin)
        , m_end(m_begin + in.size())
        , m_path(path)
        , m_options(options)
        , m_limits(options.limits)
    {
    }

    Result<Document> run();

private:
    uint64_t offset() const { return uint64_t(m_p - m_begin); }
    uint64_t left() const { return uint64_t(m_end - m_p); }
    std::string op() const { return std::string(opcodeName(m_op)); }

    bool fail(std::string message)
    {
        m_error
            = makeError(ErrorCode::ParseError, std::move(message), m_path + ": offset " + std::to_string(m_opOffset));
        return false;
    }
    bool need(uint64_t n)
    {
        if (left() >= n)
            return true;
        return fail(
            "truncated " + op() + " (needs " + std::to_string(n) + " bytes, " + std::to_string(left()) + " left)");
    }
    bool readFixed(int n, uint64_t& v)
    {
        if (!need(uint64_t(n)))
            return false;
        v = readLe(m_p, n);
        m_p += n;
        return true;
    }
    bool readLine(std::string_view& line)
    {
        const void* nl = std::memchr(m_p, '\n', size_t(left()));
        if (!nl)
            return fail("truncated " + op() + " (its argument has no end of line)");
        const auto* e = static_cast<const unsigned char*>(nl);
        line = std::string_view(reinterpret_cast<const char*>(m_p), size_t(e - m_p));
        m_p = e + 1;
        return true;
    }
    bool readUtf8Line(std::string_view& line)
    {
        if (!readLine(line))
            return false;
        if (!isUtf8(line))
            return fail(op() + " argument is not valid UTF-8");
        return true;
    }
    /// Reads `n` bytes (already length-prefixed) into a string_view.
    bool readBytes(uint64_t n, std::string_view& bytes)
    {
        if (!need(n))
            return false;
        if (n > kMaxCount)
            return fail(op() + " of " + std::to_string(n) + " bytes is too long (4 GiB at most)");
        bytes = std::string_view(reinterpret_cast<const char*>(m_p), size_t(n));
        m_p += n;
        return true;
    }

    // Values.
    bool add(const Value& v, uint32_t& id)
    {
        if (m_doc.values.size() >= m_limits.maxValues || m_doc.values.size() >= kMaxCount)
            return fail("more than " + std::to_string(std::min<uint64_t>(m_limits.maxValues, kMaxCount))
                + " values (Limits::maxValues)");
        id = uint32_t(m_doc.values.size());
        m_doc.values.push_back(v);
        return true;
    }
    bool push(uint32_t id)
    {
        if (m_stack.size() + m_marks.size() >= m_limits.maxStack)
            return fail("the stack grows beyond " + std::to_string(m_limits.maxStack) + " entries (Limits::maxStack)");
        m_stack.push_back(id);
        return true;
    }
    bool addPush(const Value& v)
    {
        uint32_t id;
        return add(v, id) && push(id);
    }
    bool pushInt(int64_t i)
    {
        Value v;
        v.kind = Kind::Int;
        std::memcpy(&v.data, &i, sizeof i);
        return addPush(v);
    }
    bool pushSingleton(uint32_t& cache, Kind kind, uint64_t data)
    {
        if (cache == kNoValue) {
            Value v;
            v.kind = kind;
            v.data = data;
            if (!add(v, cache))
                return false;
        }
        return push(cache);
    }
    bool addText(Kind kind, std::string_view bytes, uint32_t& id)
    {
        if (bytes.size() > kMaxCount)
            return fail(op() + " of " + std::to_string(bytes.size()) + " bytes is too long (4 GiB at most)");
        Value v;
        v.kind = kind;
        v.size = uint32_t(bytes.size());
        v.data = m_doc.text.size();
        if (!add(v, id))
            return false;
        m_doc.text.append(bytes);
        return true;
    }
    bool pushText(Kind kind, std::string_view bytes)
    {
        uint32_t id;
        return addText(kind, bytes, id) && push(id);
    }
    bool pushBigInt(std::string_view le);
    bool pushDecimal(std::string_view text, bool isInt);
    bool pushPy2String(std::string_view bytes) { return pushText(isAscii(bytes) ? Kind::Str : Kind::Bytes, bytes); }
    bool pushUnicode(std::string_view bytes)
    {
        if (!isUtf8(bytes))
            return fail(op() + " string is not valid UTF-8");
        return pushText(Kind::Str, bytes);
    }
    bool addNode(Kind kind, const uint32_t* items, size_t n, uint32_t& id);

    // The stack. Nothing below the innermost mark (the fence) can be popped, as in _pickle.c.
    size_t fence() const { return m_marks.empty() ? 0 : m_marks.back(); }
    bool underflow() { return fail("stack underflow in " + op()); }
    bool pop(uint32_t& id)
    {
        if (m_stack.size() <= fence())
            return underflow();
        id = m_stack.back();
        m_stack.pop_back();
        return true;
    }
    bool top(uint32_t& id)
    {
        if (m_stack.size() <= fence())
            return underflow();
        id = m_stack.back();
        return true;
    }
    bool popMark(size_t& mark)
    {
        if (m_marks.empty())
            return fail(op() + " without a MARK before it");
        mark = m_marks.back();
        m_marks.pop_back();
        return true;
    }
    /// The items from the innermost mark to the top, made into one value that replaces them.
    bool collapseMark(Kind kind);
    bool collapseTop(Kind kind, size_t n);

    // Containers.
    bool appendChildren(uint32_t id, const uint32_t* items, size_t n);
    bool target(Kind wanted, ObjectSlot objectSlot, uint32_t& id);
    bool addToTarget(Kind wanted, ObjectSlot objectSlot, size_t mark);
    bool newObject(ObjectHow how, uint32_t cls, uint32_t args, uint32_t kwargs);
    bool requireKind(uint32_t id, Kind kind, const char* what);

    // The memo.
    bool memoPut(uint64_t index);
    bool memoGet(uint64_t index);
    bool lineIndex(uint64_t& index);

    // Class references.
    bool pushGlobal(std::string_view module, std::string_view name, uint32_t& id);
    bool makeGlobal(uint32_t moduleStr, uint32_t nameStr, uint32_t& id);
    void noteFinding(Finding::What what, std::string module, std::string name, uint32_t value);

    bool step();
    bool opString();
    bool opInst();
    bool pushPersistentId(uint32_t pid);
    bool pushExtension(int64_t code);
    bool finish();
    bool measureDepth();
    void compactChildren();

    const unsigned char* m_begin;
    const unsigned char* m_p;
    const unsigned char* m_end;
    const unsigned char* m_nextProgress = nullptr;
    const std::string& m_path;
    const ReadOptions& m_options;
    const Limits& m_limits;
    uint64_t m_opOffset = 0;
    uint8_t m_op = 0;
    int m_opProtocol = 0;
    bool m_sawProto = false;
    std::optional<Error> m_error;

    Document m_doc;
    std::vector<uint32_t> m_stack;
    std::vector<size_t> m_marks;
    uint32_t m_none = kNoValue, m_true = kNoValue, m_false = kNoValue; ///< singletons, as in Python

    /// Memo indices are dense when pickle.py writes them; a sparse index goes to the map, so a
    /// LONG_BINPUT of 4e9 costs one entry, not 16 GiB.
    std::vector<uint32_t> m_memo;
    std::unordered_map<uint64_t, uint32_t> m_sparseMemo;
    uint64_t m_memoCount = 0;

    /// Room reserved behind a container's children after it moved to the end of
    /// Document::children (see appendChildren).
    std::unordered_map<uint32_t, uint64_t> m_capacity;
    uint64_t m_wasted = 0;
    std::unordered_map<std::string, size_t> m_findingIndex;
};

} // namespace engine::pickle::detail
