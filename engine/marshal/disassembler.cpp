// Our own disassembler of CPython 3.8-3.13 bytecode. It follows dis.py of each version step by
// step: _unpack_opargs (wordcode, EXTENDED_ARG, 3.11+ inline caches), findlabels, findlinestarts
// over the version's line table (lnotab, 3.10 linetable, 3.11+ location table), the argument reprs
// of _get_instructions_bytes / ArgResolver, the exception table, and the column layout of
// Instruction._disassemble (3.8-3.12) and Formatter (3.13, labels instead of offsets).
#include "engine/marshal/disassembler.h"

#include "engine/marshal/opcode_tables.h"

#include <algorithm>
#include <map>
#include <set>

namespace engine::marshal {

using detail::OpInfo;
using detail::OpTable;
using detail::Special;

namespace {

constexpr int64_t kNoLine = INT64_MIN; ///< Python's None as a line number
constexpr size_t kMaxListing = size_t(32) << 20; ///< a listing longer than this is refused
constexpr size_t kMaxConstRepr = size_t(1) << 20; ///< a constant's repr is cut beyond this
constexpr uint64_t kMaxVarint = uint64_t(1) << 60; ///< exception-table numbers saturate here

// Python integer arithmetic on int64 without undefined behaviour (wrapping where Python would grow).
int64_t wrapAdd(int64_t a, int64_t b)
{
    return int64_t(uint64_t(a) + uint64_t(b));
}
int64_t wrapMul(int64_t a, int64_t b)
{
    return int64_t(uint64_t(a) * uint64_t(b));
}
int64_t floorDiv(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// Python's a >> n (a floor division by 2**n).
int64_t shiftRight(int64_t a, int n)
{
    return floorDiv(a, int64_t(1) << n);
}
/// Python's sequence indexing (negative from the end); false where Python raises IndexError.
bool pyIndex(int64_t i, size_t size, size_t& out)
{
    if (i < 0)
        i += int64_t(size);
    if (i < 0 || uint64_t(i) >= size)
        return false;
    out = size_t(i);
    return true;
}

std::string rjust(const std::string& s, int64_t width)
{
    return int64_t(s.size()) >= width ? s : std::string(size_t(width) - s.size(), ' ') + s;
}

std::string ljust(const std::string& s, size_t width)
{
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

void rstrip(std::string& s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.pop_back();
}

/// One instruction as _unpack_opargs yields it.
struct Unpacked {
    uint32_t offset = 0;
    uint8_t op = 0;
    bool hasArg = false;
    bool argMissing = false; ///< odd-length code: the argument byte is past the end
    int64_t arg = -1;
    uint16_t caches = 0;
};

std::vector<Unpacked> unpack(const std::string& code, const OpTable& t)
{
    const int minor = t.version.minor;
    std::vector<Unpacked> out;
    out.reserve(code.size() / 2);
    int64_t extended = 0;
    uint32_t skip = 0;
    for (size_t i = 0; i < code.size(); i += 2) {
        if (skip) { // inline CACHE entries (3.11+)
            --skip;
            continue;
        }
        Unpacked u;
        u.offset = uint32_t(i);
        u.op = static_cast<uint8_t>(code[i]);
        const OpInfo& info = t.ops[u.op];
        if (minor >= 11)
            skip = u.caches = info.caches;
        if (info.hasArg) {
            u.hasArg = true;
            uint8_t low = 0;
            if (i + 1 < code.size())
                low = static_cast<uint8_t>(code[i + 1]);
            else
                u.argMissing = true;
            u.arg = int64_t(low) | extended;
            if (info.special == Special::ExtendedArg) {
                extended = int64_t(uint64_t(u.arg) << 8);
                // 3.11+: the oparg is a C int; dis wraps it once to a negative number.
                if (minor >= 11 && extended >= (int64_t(1) << 31))
                    extended -= int64_t(1) << 32;
            } else {
                extended = 0;
            }
        } else if (minor >= 10) {
            extended = 0; // 3.8/3.9 keep it across instructions without an argument
        }
        out.push_back(u);
    }
    return out;
}

/// The offset an instruction jumps to (dis's argval for jumps), false for no jump.
bool jumpTarget(const OpTable& t, const Unpacked& u, int64_t& target)
{
    if (!u.hasArg)
        return false;
    const OpInfo& info = t.ops[u.op];
    const int minor = t.version.minor;
    if (info.lists & detail::kHasJrel) {
        if (minor <= 9) {
            target = wrapAdd(u.offset + 2, u.arg);
        } else {
            const int64_t signedArg = info.backward ? wrapMul(u.arg, -1) : u.arg;
            target = wrapAdd(u.offset + 2, wrapMul(signedArg, 2));
            if (minor >= 12)
                target = wrapAdd(target, 2 * int64_t(info.caches));
        }
        return true;
    }
    if (info.lists & detail::kHasJabs) {
        target = minor <= 9 ? u.arg : wrapMul(u.arg, 2);
        return true;
    }
    return false;
}

/// co_lines() of each version: (start, line) of every address range, kNoLine for None.
std::vector<std::pair<int64_t, int64_t>> coLines(const Code& c, int minor)
{
    std::vector<std::pair<int64_t, int64_t>> out;
    const std::string& table = c.lineTable;
    const auto byte = [&](size_t i) -> uint8_t {
        return i < table.size() ? static_cast<uint8_t>(table[i]) : 0; // bytes end with a NUL
    };
    if (minor == 10) {
        // Pairs (address delta, signed line delta); -128 marks "no line". Empty ranges are skipped.
        int64_t end = 0, line = c.firstLineNo;
        size_t pos = 0;
        while (pos < table.size()) {
            int64_t start = end, rangeLine = kNoLine;
            do {
                start = end;
                end += byte(pos);
                const auto delta = static_cast<int8_t>(byte(pos + 1));
                pos += 2;
                if (delta == -128) {
                    rangeLine = kNoLine;
                } else {
                    line = int32_t(uint32_t(line) + uint32_t(int32_t(delta)));
                    rangeLine = line < 0 ? kNoLine : line;
                }
            } while (start == end && pos < table.size());
            if (start == end)
                break; // CPython would read past the table here
            out.emplace_back(start, rangeLine);
        }
        return out;
    }
    // 3.11+ location table: an entry starts with a byte with bit 7 set; bits 3-6 the kind, bits
    // 0-2 the code units covered minus one.
    int32_t line = c.firstLineNo;
    int64_t end = 0;
    size_t pos = 0;
    while (pos < table.size()) {
        const uint8_t first = byte(pos);
        const int kind = (first >> 3) & 15;
        int32_t delta = 0;
        if (kind == 13 || kind == 14) { // no columns / long form: a signed varint line delta
            size_t p = pos + 1;
            uint32_t read = byte(p++), value = read & 63, shift = 0;
            while (read & 64) {
                read = byte(p++);
                shift += 6;
                value |= (read & 63) << (shift & 31); // the shift as x86 does it past 31 bits
                if (p > table.size() + 1)
                    break; // past the NUL that ends the bytes
            }
            delta = (value & 1) ? -int32_t(value >> 1) : int32_t(value >> 1);
        } else if (kind >= 10 && kind <= 12) {
            delta = kind - 10;
        }
        line = int32_t(uint32_t(line) + uint32_t(delta));
        int64_t rangeLine = (first >> 3) == 0x1F ? -1 : line;
        // 3.11's co_lines gives None for any negative line, 3.12+ for -1 only.
        if (rangeLine == -1 || (minor == 11 && rangeLine < 0))
            rangeLine = kNoLine;
        const int64_t start = end;
        end += ((first & 7) + 1) * 2;
        do
            ++pos;
        while (pos < table.size() && (byte(pos) & 128) == 0);
        // 3.13 merges neighbouring ranges of one line (it matters: findlinestarts compares with `is`).
        if (minor >= 13 && !out.empty() && out.back().second == rangeLine)
            continue;
        out.emplace_back(start, rangeLine);
    }
    return out;
}

/// dict(findlinestarts(code)) of each version.
std::map<int64_t, int64_t> lineStarts(const Code& c, int minor)
{
    std::map<int64_t, int64_t> out;
    if (minor <= 9) {
        const std::string& t = c.lineTable;
        const int64_t length = int64_t(c.bytecode.size());
        int64_t line = c.firstLineNo, last = kNoLine, addr = 0;
        bool ended = false;
        for (size_t k = 0; k + 1 < t.size(); k += 2) {
            const auto byteIncr = static_cast<uint8_t>(t[k]);
            if (byteIncr) {
                if (line != last) {
                    out[addr] = line;
                    last = line;
                }
                addr += byteIncr;
                if (addr >= length) {
                    ended = true;
                    break;
                }
            }
            line += static_cast<int8_t>(t[k + 1]);
        }
        if (!ended && line != last)
            out[addr] = line;
        return out;
    }
    int64_t last = kNoLine;
    bool first = true;
    for (const auto& [start, line] : coLines(c, minor)) {
        if (minor >= 13) {
            if (first || line != last) {
                out[start] = line;
                last = line;
                first = false;
            }
        } else if (line != kNoLine && line != last) {
            out[start] = line;
            last = line;
        }
    }
    return out;
}

struct ExceptionEntry {
    int64_t start = 0, end = 0, target = 0, depth = 0;
    bool lasti = false;
};

/// dis._parse_exception_table: big-endian 6-bit varints; an incomplete last entry is dropped.
std::vector<ExceptionEntry> exceptionTable(const Code& c, bool* saturated = nullptr)
{
    std::vector<ExceptionEntry> out;
    const std::string& t = c.exceptionTable;
    size_t pos = 0;
    const auto varint = [&](uint64_t& value) {
        if (pos >= t.size())
            return false;
        uint8_t b = static_cast<uint8_t>(t[pos++]);
        value = b & 63;
        while (b & 64) {
            if (pos >= t.size())
                return false;
            b = static_cast<uint8_t>(t[pos++]);
            value = (value << 6) | (b & 63);
            if (value > kMaxVarint >> 6) { // Python's ints grow on; these stop here
                value = kMaxVarint;
                if (saturated)
                    *saturated = true;
            }
        }
        return true;
    };
    for (;;) {
        uint64_t start, length, target, depthLasti;
        if (!varint(start) || !varint(length) || !varint(target) || !varint(depthLasti))
            return out;
        ExceptionEntry e;
        e.start = int64_t(start) * 2;
        e.end = e.start + int64_t(length) * 2;
        e.target = int64_t(target) * 2;
        e.depth = int64_t(depthLasti >> 1);
        e.lasti = depthLasti & 1;
        out.push_back(e);
    }
}

std::string flagsRepr(int64_t arg)
{
    static const char* const names[] = { "defaults", "kwdefaults", "annotations", "closure" };
    std::string out;
    for (int i = 0; i < 4; ++i) {
        if (arg & (int64_t(1) << i)) {
            if (!out.empty())
                out += ", ";
            out += names[i];
        }
    }
    return out;
}

/// Everything the disassembly of one code object needs, and the reprs of its constants, made once.
class CodeView {
public:
    CodeView(const Document& doc, const Code& code, const OpTable& table)
        : m_doc(doc)
        , m_code(code)
        , m_t(table)
        , m_minor(table.version.minor)
        , m_units(unpack(code.bytecode, table))
        , m_lines(lineStarts(code, m_minor))
    {
        if (m_minor >= 11)
            m_exceptions = exceptionTable(code);
        findLabels();
    }

    const std::vector<Unpacked>& units() const { return m_units; }
    const std::map<int64_t, int64_t>& lines() const { return m_lines; }
    const std::vector<ExceptionEntry>& exceptions() const { return m_exceptions; }
    const std::map<int64_t, int>& labels() const { return m_labels; }
    bool isJumpTarget(int64_t offset) const { return m_labels.count(offset) > 0; }

    /// What dis prints in parentheses; `ok` false where dis would raise (an index out of range).
    /// Without `withConsts` a constant's repr is not made (only its index checked).
    std::string argRepr(const Unpacked& u, bool& ok, bool withConsts = true)
    {
        ok = true;
        if (!u.hasArg)
            return "";
        const OpInfo& info = m_t.ops[u.op];
        const int64_t arg = u.arg;
        if (info.lists & detail::kHasConst) {
            if (info.special == Special::KwNames && m_minor == 11)
                return ""; // 3.11's dis resolves LOAD_CONST only
            size_t k;
            if (!withConsts)
                return pyIndex(arg, m_code.consts.size(), k) ? "" : outOfRange(arg, ok);
            return constRepr(arg, ok);
        }
        if (info.lists & detail::kHasName)
            return nameRepr(info, arg, ok);
        int64_t target;
        if (jumpTarget(m_t, u, target)) {
            if (m_minor <= 9 && (info.lists & detail::kHasJabs))
                return ""; // 3.8/3.9 print absolute jumps without "to"
            if (m_minor >= 13)
                return "to L" + std::to_string(m_labels.at(target));
            return "to " + std::to_string(target);
        }
        if (m_minor >= 13 && info.special == Special::FastPair)
            return localName(shiftRight(arg, 4), ok) + ", " + localName(arg & 15, ok);
        if (m_minor <= 10) {
            if (info.lists & detail::kHasLocal)
                return listItem(m_code.varNames, arg, ok);
            if (info.lists & detail::kHasCompare)
                return listItem(m_t.cmpOp, arg, ok);
            if (info.lists & detail::kHasFree) {
                const size_t cells = m_code.cellVars.size();
                size_t k;
                if (!pyIndex(arg, cells + m_code.freeVars.size(), k))
                    return outOfRange(arg, ok);
                return k < cells ? m_code.cellVars[k] : m_code.freeVars[k - cells];
            }
        } else {
            if (info.lists & (detail::kHasLocal | detail::kHasFree))
                return localName(arg, ok);
            if (info.lists & detail::kHasCompare) {
                const std::string op
                    = listItem(m_t.cmpOp, m_minor == 11 ? arg : shiftRight(arg, m_minor == 12 ? 4 : 5), ok);
                return m_minor >= 13 && (arg & 16) ? "bool(" + op + ")" : op;
            }
        }
        switch (info.special) {
        case Special::FormatValue: {
            static const char* const converters[] = { "", "str", "repr", "ascii" };
            std::string out = converters[arg & 3];
            if (arg & 4)
                out += out.empty() ? "with format" : ", with format";
            return out;
        }
        case Special::MakeFunction:
        case Special::SetFunctionAttribute:
            return flagsRepr(arg);
        case Special::BinaryOp:
            return listItem(m_t.nbOps, arg, ok);
        case Special::Intrinsic1:
            return listItem(m_t.intrinsic1, arg, ok);
        case Special::Intrinsic2:
            return listItem(m_t.intrinsic2, arg, ok);
        case Special::ConvertValue: {
            static const std::vector<std::string> converters { "", "str", "repr", "ascii" };
            return listItem(converters, arg, ok);
        }
        default:
            return "";
        }
    }

private:
    const Document& m_doc;
    const Code& m_code;
    const OpTable& m_t;
    int m_minor;
    std::vector<Unpacked> m_units;
    std::map<int64_t, int64_t> m_lines;
    std::vector<ExceptionEntry> m_exceptions;
    std::map<int64_t, int> m_labels; ///< jump targets (3.13: numbered labels)
    std::map<size_t, std::string> m_constReprs;

    void findLabels()
    {
        std::set<int64_t> targets;
        for (const Unpacked& u : m_units) {
            int64_t target;
            if (jumpTarget(m_t, u, target))
                targets.insert(target);
        }
        for (const ExceptionEntry& e : m_exceptions) {
            if (m_minor >= 13) {
                targets.insert(e.start);
                targets.insert(e.end);
                targets.insert(e.target);
            } else if (e.start < e.end) {
                targets.insert(e.target);
            }
        }
        int n = 0;
        for (int64_t t : targets)
            m_labels[t] = ++n;
    }

    static std::string outOfRange(int64_t index, bool& ok)
    {
        ok = false;
        return "<index " + std::to_string(index) + " out of range>";
    }

    static std::string listItem(const std::vector<std::string>& list, int64_t index, bool& ok)
    {
        size_t k;
        if (!pyIndex(index, list.size(), k))
            return outOfRange(index, ok);
        return list[k];
    }

    std::string localName(int64_t index, bool& ok) { return listItem(m_code.localsPlusNames, index, ok); }

    std::string constRepr(int64_t index, bool& ok)
    {
        size_t k;
        if (!pyIndex(index, m_code.consts.size(), k))
            return outOfRange(index, ok);
        auto it = m_constReprs.find(k);
        if (it == m_constReprs.end())
            it = m_constReprs.emplace(k, repr(m_doc, m_code.consts[k], kMaxConstRepr)).first;
        return it->second;
    }

    std::string nameRepr(const OpInfo& info, int64_t arg, bool& ok)
    {
        int64_t index = arg;
        const char* prefix = nullptr; // 3.11/3.12 print it before the name, 3.13 after
        if (info.special == Special::LoadGlobal) {
            index = floorDiv(arg, 2);
            prefix = m_minor >= 13 ? " + NULL" : "NULL + ";
        } else if (info.special == Special::LoadAttr) {
            index = floorDiv(arg, 2);
            prefix = m_minor >= 13 ? " + NULL|self" : "NULL|self + ";
        } else if (info.special == Special::LoadSuperAttr) {
            index = floorDiv(arg, 4);
            prefix = m_minor >= 13 ? " + NULL|self" : "NULL|self + ";
        }
        const std::string name = listItem(m_code.names, index, ok);
        if (!prefix || !(arg & 1) || name.empty())
            return name;
        return m_minor >= 13 ? name + prefix : prefix + name;
    }
};

/// The listing of one code object, appended to `out`.
class Printer {
public:
    Printer(const Document& doc, const OpTable& table, std::string& out)
        : m_doc(doc)
        , m_t(table)
        , m_minor(table.version.minor)
        , m_out(out)
    {
    }

    bool code(const Code& c)
    {
        CodeView view(m_doc, c, m_t);
        const bool v313 = m_minor >= 13;
        const auto& lines = view.lines();
        const auto& labels = view.labels();
        const int64_t lineWidth = v313 ? lineWidth313(lines) : lineWidth38(lines);
        const int64_t maxOffset = int64_t(c.bytecode.size()) - 2;
        const int64_t offsetWidth = maxOffset >= 10000 ? int64_t(std::to_string(maxOffset).size()) : 4;
        const int64_t labelWidth = 4 + int64_t(std::to_string(labels.size()).size());
        for (const Unpacked& u : view.units()) {
            const auto start = lines.find(u.offset);
            const bool startsLine = start != lines.end();
            if (lineWidth > 0 && startsLine && u.offset > 0)
                m_out += '\n';
            std::string s;
            if (lineWidth > 0) {
                if (startsLine)
                    s += rjust(start->second == kNoLine ? "  --" : std::to_string(start->second), lineWidth) + " ";
                else
                    s += std::string(size_t(lineWidth) + 1, ' ');
            }
            if (v313) { // label, then the current-instruction column
                const auto label = labels.find(u.offset);
                s += label != labels.end() ? rjust("L" + std::to_string(label->second) + ":", labelWidth)
                                           : std::string(size_t(labelWidth), ' ');
                s += "     ";
            } else { // the current-instruction column, the jump-target mark, the offset
                s += view.isJumpTarget(u.offset) ? "    >> " : "       ";
                s += rjust(std::to_string(u.offset), offsetWidth) + " ";
            }
            const std::string name = opname(u.op);
            s += ljust(name, 20);
            if (u.hasArg) {
                bool ok;
                const std::string argRepr = view.argRepr(u, ok);
                // 3.13 lets a long name take room from the argument column.
                const int64_t excess = v313 ? std::max<int64_t>(0, int64_t(name.size()) - 20) : 0;
                s += " " + rjust(std::to_string(u.arg), 5 - excess);
                if (!argRepr.empty())
                    s += " (" + argRepr + ")";
            }
            if (!line(std::move(s)))
                return false;
        }
        if (view.exceptions().empty())
            return true;
        m_out += "ExceptionTable:\n";
        const auto place
            = [&](int64_t offset) { return v313 ? "L" + std::to_string(labels.at(offset)) : std::to_string(offset); };
        for (const ExceptionEntry& e : view.exceptions())
            if (!line("  " + place(e.start) + " to " + place(v313 ? e.end : e.end - 2) + " -> " + place(e.target) + " ["
                    + std::to_string(e.depth) + "]" + (e.lasti ? " lasti" : "")))
                return false;
        return true;
    }

private:
    const Document& m_doc;
    const OpTable& m_t;
    int m_minor;
    std::string& m_out;

    bool line(std::string s)
    {
        rstrip(s);
        m_out += s;
        m_out += '\n';
        return m_out.size() <= kMaxListing;
    }

    std::string opname(uint8_t op) const
    {
        const std::string& name = m_t.ops[op].name;
        return name.empty() ? "<" + std::to_string(op) + ">" : name;
    }

    /// 3.8-3.12: 3 columns, more for lines past 999; none for 3.10+ code without line starts.
    int64_t lineWidth38(const std::map<int64_t, int64_t>& lines) const
    {
        if (m_minor >= 10 && lines.empty())
            return 0;
        int64_t maxLine = INT64_MIN;
        for (const auto& entry : lines)
            maxLine = std::max(maxLine, entry.second);
        return maxLine >= 1000 ? int64_t(std::to_string(maxLine).size()) : 3;
    }

    /// 3.13's _get_lineno_width: the largest line (None and 0 do not count); 4 for "  --".
    static int64_t lineWidth313(const std::map<int64_t, int64_t>& lines)
    {
        int64_t maxLine = INT64_MIN;
        bool anyNone = false;
        for (const auto& entry : lines) {
            if (entry.second == kNoLine)
                anyNone = true;
            else if (entry.second != 0)
                maxLine = std::max(maxLine, entry.second);
        }
        if (maxLine == INT64_MIN || maxLine == -1) // max(..., default=-1): a real line -1 reads the same
            return 0;
        const int64_t width = std::max<int64_t>(3, int64_t(std::to_string(maxLine).size()));
        return width < 4 && anyNone ? 4 : width;
    }
};

[[gnu::noinline]] bool listOne(const Document& doc, const OpTable& table, const Code& c, std::string& out)
{
    return Printer(doc, table, out).code(c);
}

[[gnu::noinline]] bool listHeader(const Document& doc, uint32_t id, std::string& out)
{
    out += "\nDisassembly of " + repr(doc, id, kMaxConstRepr) + ":\n";
    return out.size() <= kMaxListing;
}

/// The listing of a code object, then of the code objects among its constants (recursing once per
/// nesting level, which the reader's Limits::maxDepth bounds).
bool listRecursive(const Document& doc, const OpTable& table, uint32_t codeIndex, std::string& out)
{
    const Code& c = doc.codes[codeIndex];
    if (!listOne(doc, table, c, out))
        return false;
    for (uint32_t id : c.consts)
        if (doc.values[id].kind == Kind::Code
            && (!listHeader(doc, id, out) || !listRecursive(doc, table, doc.values[id].code, out)))
            return false;
    return true;
}

Error listingError(const std::string& message)
{
    return makeError(ErrorCode::InvalidArgument, message);
}

// ---- version guessing ---------------------------------------------------------------------------

/// Why `c` does not read as bytecode of `t`'s version ("" when it does).
std::string problemIn(const Document& doc, const Code& c, const OpTable& t)
{
    const int minor = t.version.minor;
    const std::string where = " in " + c.qualname;
    if (c.bytecode.empty())
        return "empty co_code" + where;
    if (c.bytecode.size() % 2)
        return "co_code of odd length" + where;
    const std::vector<Unpacked> units = unpack(c.bytecode, t);
    std::set<int64_t> starts;
    for (const Unpacked& u : units)
        starts.insert(u.offset);
    const auto at = [&](const Unpacked& u) { return " at offset " + std::to_string(u.offset) + where; };
    CodeView view(doc, c, t);
    int extendedRun = 0;
    for (const Unpacked& u : units) {
        const OpInfo& info = t.ops[u.op];
        if (!info.marshallable)
            return (info.name.empty() ? "unknown opcode " + std::to_string(u.op) : info.name) + at(u);
        if (u.offset + 2 + 2 * size_t(u.caches) > c.bytecode.size())
            return info.name + "'s inline caches run past the end" + at(u);
        for (size_t k = 0; k < 2 * size_t(u.caches); ++k)
            if (c.bytecode[u.offset + 2 + k] != 0)
                return "non-zero CACHE after " + info.name + at(u);
        extendedRun = info.special == Special::ExtendedArg ? extendedRun + 1 : 0;
        if (extendedRun > 3)
            return "more than three EXTENDED_ARGs" + at(u);
        if (!u.hasArg)
            continue;
        if (u.arg < 0)
            return "negative argument to " + info.name + at(u);
        bool ok;
        const std::string argRepr = view.argRepr(u, ok, false);
        if (!ok)
            return info.name + " argument " + argRepr + at(u);
        int64_t target;
        if (jumpTarget(t, u, target) && !starts.count(target))
            return info.name + " to " + std::to_string(target) + ", not an instruction" + at(u);
        if (info.special == Special::FormatValue && u.arg > 7)
            return "FORMAT_VALUE " + std::to_string(u.arg) + at(u);
        if ((info.special == Special::MakeFunction || info.special == Special::SetFunctionAttribute) && u.arg > 15)
            return info.name + " " + std::to_string(u.arg) + at(u);
    }
    const std::string& last = t.ops[units.back().op].name;
    static const char* const enders[] = { "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_ABSOLUTE",
        "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "END_FINALLY", "POP_FINALLY",
        "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE" };
    if (std::find(std::begin(enders), std::end(enders), last) == std::end(enders))
        return "ends in " + last + ", which falls off the end" + where;
    if (minor >= 11) {
        // RESUME comes first, after the cell and generator prologue.
        bool resumed = false;
        for (const Unpacked& u : units) {
            const std::string& name = t.ops[u.op].name;
            if (name == "MAKE_CELL" || name == "COPY_FREE_VARS" || name == "RETURN_GENERATOR" || name == "POP_TOP")
                continue;
            resumed = t.ops[u.op].special == Special::Resume && u.arg == 0;
            break;
        }
        if (!resumed)
            return "no RESUME 0 at the start" + where;
    }
    // Line tables: 3.8/3.9's lnotab stops at the last line's start, 3.10's covers the whole code,
    // 3.11+'s location table covers every code unit.
    const std::string& lt = c.lineTable;
    if (minor <= 10) {
        if (lt.size() % 2)
            return "line table of odd length" + where;
        uint64_t covered = 0;
        for (size_t k = 0; k < lt.size(); k += 2)
            covered += static_cast<uint8_t>(lt[k]);
        if (minor == 10 && covered != c.bytecode.size())
            return "3.10 line table covers " + std::to_string(covered) + " of " + std::to_string(c.bytecode.size())
                + " bytes" + where;
        if (minor <= 9 && covered >= c.bytecode.size())
            return "lnotab reaches the end of the code (a 3.10 line table?)" + where;
    } else {
        int64_t end = 0;
        size_t pos = 0;
        for (; pos < lt.size(); ++pos) {
            const auto b = static_cast<uint8_t>(lt[pos]);
            if (b & 128)
                end += ((b & 7) + 1) * 2;
        }
        if (lt.empty() || !(static_cast<uint8_t>(lt[0]) & 128) || end != int64_t(c.bytecode.size()))
            return "location table covers " + std::to_string(end) + " of " + std::to_string(c.bytecode.size())
                + " bytes" + where;
        bool saturated = false;
        for (const ExceptionEntry& e : exceptionTable(c, &saturated)) {
            if (saturated || e.start >= e.end || e.end > int64_t(c.bytecode.size()) || !starts.count(e.start)
                || !starts.count(e.target))
                return "exception table entry " + std::to_string(e.start) + " to " + std::to_string(e.end) + " -> "
                    + std::to_string(e.target) + " does not fit the code" + where;
        }
    }
    return "";
}

} // namespace

VersionGuess guessVersion(const Document& doc)
{
    VersionGuess g;
    if (!doc.hasCode || doc.codes.empty()) {
        g.reason = "no code object: nothing to tell the version by";
        return g;
    }
    const bool py311 = doc.layout == CodeLayout::Py311;
    struct Score {
        PyVersion version;
        size_t problems = 0;
        std::string first;
    };
    std::vector<Score> scores;
    for (const PyVersion& v : supportedVersions()) {
        if ((v.minor >= 11) != py311)
            continue;
        Score s { v, 0, "" };
        for (const Code& c : doc.codes) {
            const std::string p = problemIn(doc, c, *detail::opTable(v));
            if (!p.empty()) {
                if (s.problems++ == 0)
                    s.first = p;
            }
        }
        scores.push_back(s);
    }
    // Fewest problems first; among equals the newer version.
    std::stable_sort(scores.begin(), scores.end(), [](const Score& a, const Score& b) {
        return a.problems != b.problems ? a.problems < b.problems : b.version < a.version;
    });
    const size_t best = scores.front().problems;
    std::string fits, rejected;
    for (const Score& s : scores) {
        if (s.problems == best) {
            g.candidates.push_back(s.version);
            fits += (fits.empty() ? "" : ", ") + s.version.text();
        } else {
            rejected += "; not " + s.version.text() + ": " + s.first;
        }
    }
    const std::string layout
        = py311 ? "3.11+ code layout (co_qualname, co_exceptiontable)" : "3.8-3.10 code layout (co_nlocals, co_lnotab)";
    if (best == 0)
        g.reason = layout + "; bytecode reads cleanly as " + fits + rejected;
    else
        g.reason = layout + "; no version reads all " + std::to_string(doc.codes.size()) + " code objects cleanly, "
            + fits + " the closest (" + scores.front().first + ")" + rejected;
    return g;
}

Result<std::vector<Instruction>> disassemble(const Document& doc, uint32_t code, PyVersion version)
{
    const OpTable* table = detail::opTable(version);
    if (!table)
        return listingError("Python " + version.text() + " is not a version the disassembler knows (3.8-3.13)");
    if (code >= doc.codes.size())
        return listingError("no code object " + std::to_string(code));
    const Code& c = doc.codes[code];
    if ((c.layout == CodeLayout::Py311) != (version.minor >= 11))
        return listingError("a code object of the " + std::string(c.layout == CodeLayout::Py311 ? "3.11+" : "3.8-3.10")
            + " layout is not " + version.text() + " bytecode");
    CodeView view(doc, c, *table);
    std::vector<Instruction> out;
    out.reserve(view.units().size());
    int64_t line = -1;
    for (const Unpacked& u : view.units()) {
        Instruction in;
        in.offset = u.offset;
        const auto start = view.lines().find(u.offset);
        in.startsLine = start != view.lines().end();
        if (in.startsLine)
            line = start->second == kNoLine ? -1 : start->second;
        in.line = int(std::clamp<int64_t>(line, INT32_MIN, INT32_MAX));
        in.jumpTarget = view.isJumpTarget(u.offset);
        if (version.minor >= 13 && in.jumpTarget)
            in.label = view.labels().at(u.offset);
        in.opcode = u.op;
        in.opname = table->ops[u.op].name.empty() ? "<" + std::to_string(u.op) + ">" : table->ops[u.op].name;
        in.arg = u.hasArg ? u.arg : -1;
        bool ok;
        in.argRepr = view.argRepr(u, ok);
        in.caches = u.caches;
        out.push_back(std::move(in));
    }
    return out;
}

Result<std::string> disListing(const Document& doc, PyVersion version)
{
    const OpTable* table = detail::opTable(version);
    if (!table)
        return listingError("Python " + version.text() + " is not a version the disassembler knows (3.8-3.13)");
    const Code* root = doc.rootCode();
    if (!root)
        return listingError("the marshal data holds no code object at its root");
    if ((root->layout == CodeLayout::Py311) != (version.minor >= 11))
        return listingError("code objects of the "
            + std::string(root->layout == CodeLayout::Py311 ? "3.11+" : "3.8-3.10") + " layout are not "
            + version.text() + " bytecode");
    std::string out;
    if (!listRecursive(doc, *table, doc.values[doc.root].code, out))
        return listingError("the listing is longer than " + std::to_string(kMaxListing >> 20)
            + " MiB (constants or code objects shared many times over)");
    return out;
}

const std::vector<std::string>& opcodeNames(PyVersion version)
{
    static const std::vector<std::string> none(256);
    const OpTable* table = detail::opTable(version);
    return table ? table->names : none;
}

} // namespace engine::marshal
