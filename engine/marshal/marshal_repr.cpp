// Python's repr() of marshalled values, as dis prints constants: str and bytes quoting, float and
// complex digits, containers (through shared and cyclic values), code objects.
#include "engine/core/py_value.h"
#include "engine/core/text_codec.h"
#include "engine/marshal/marshal_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace engine::marshal {

namespace {

/// PyOS_double_to_string(v, 'r', 0, flags): repr() digits without the ".0" Python adds to floats,
/// with a sign when asked (complex parts).
std::string complexPart(double v, bool sign)
{
    std::string s = pyFloatRepr(v);
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
        s.resize(s.size() - 2);
    if (sign && s[0] != '-')
        s = "+" + s;
    return s;
}

// ---- set order ---------------------------------------------------------------------------------
// CPython prints a set in its hash table's order, which marshal.loads rebuilds by adding the
// stored items one by one. Where every item's hash is known without the process (ints, bools,
// floats, complex, tuples of those: not str or bytes, whose hashes are randomised per process),
// the table is rebuilt here the way Objects/setobject.c does, equal items dropped.

constexpr size_t kMaxOrderedSet = 100000; ///< larger sets print in stored order
constexpr uint64_t kHashModulus = (uint64_t(1) << 61) - 1;
constexpr int kHashBits = 61;

uint64_t fixMinusOne(uint64_t h)
{
    return h == uint64_t(-1) ? uint64_t(-2) : h;
}

/// hash() of an int given as sign and decimal digits.
uint64_t hashDecimal(std::string_view text)
{
    const bool negative = !text.empty() && text[0] == '-';
    uint64_t x = 0;
    for (char c : text.substr(negative ? 1 : 0))
        x = uint64_t((static_cast<unsigned __int128>(x) * 10 + uint64_t(c - '0')) % kHashModulus);
    return fixMinusOne(negative ? uint64_t(0) - x : x);
}

uint64_t hashInt(int64_t v)
{
    const uint64_t mag = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    const uint64_t x = mag % kHashModulus;
    return fixMinusOne(v < 0 ? uint64_t(0) - x : x);
}

/// _Py_HashDouble; false for nan (its hash is the object's address since 3.10).
bool hashDouble(double v, uint64_t& out)
{
    if (std::isnan(v))
        return false;
    if (std::isinf(v)) {
        out = v > 0 ? 314159 : uint64_t(-314159);
        return true;
    }
    int e;
    double m = std::frexp(v, &e);
    int sign = 1;
    if (m < 0) {
        sign = -1;
        m = -m;
    }
    uint64_t x = 0;
    while (m != 0) {
        x = ((x << 28) & kHashModulus) | x >> (kHashBits - 28);
        m *= 268435456.0;
        e -= 28;
        const auto y = uint64_t(m);
        m -= double(y);
        x += y;
        if (x >= kHashModulus)
            x -= kHashModulus;
    }
    e = e >= 0 ? e % kHashBits : kHashBits - 1 - ((-1 - e) % kHashBits);
    x = ((x << e) & kHashModulus) | x >> (kHashBits - e);
    out = fixMinusOne(sign < 0 ? uint64_t(0) - x : x);
    return true;
}

/// hash() and == of the values whose hash does not depend on the process, within a budget of steps
/// (values shared many times over make a DAG whose paths are exponentially many).
class Hasher {
public:
    explicit Hasher(const Document& doc)
        : m_doc(doc)
    {
    }

    bool exhausted() const { return m_steps == 0; }

    bool hash(uint32_t id, uint64_t& out, int depth = 0)
    {
        if (id >= m_doc.values.size() || depth > 50 || !spend())
            return false;
        const auto memo = m_memo.find(id);
        if (memo != m_memo.end()) {
            out = memo->second.second;
            return memo->second.first;
        }
        const bool ok = compute(m_doc.values[id], out, depth);
        m_memo[id] = { ok, out };
        return ok;
    }

    /// Python's == for the values hash() knows.
    bool equal(uint32_t a, uint32_t b, int depth = 0)
    {
        if (a == b)
            return true;
        if (depth > 50 || !spend())
            return false;
        const Value& x = m_doc.values[a];
        const Value& y = m_doc.values[b];
        const auto number = [](const Value& v, double& re, double& im) {
            re = v.kind == Kind::Float || v.kind == Kind::Complex ? v.real : double(v.integer);
            im = v.kind == Kind::Complex ? v.imag : 0;
            return v.kind == Kind::Bool || v.kind == Kind::Int || v.kind == Kind::Float || v.kind == Kind::Complex;
        };
        if ((x.kind == Kind::Int || x.kind == Kind::Bool) && (y.kind == Kind::Int || y.kind == Kind::Bool))
            return x.integer == y.integer;
        double xr, xi, yr, yi;
        if (number(x, xr, xi) && number(y, yr, yi))
            return xr == yr && xi == yi;
        if (x.kind == Kind::BigInt && y.kind == Kind::BigInt)
            return x.text == y.text;
        if (x.kind == Kind::Tuple && y.kind == Kind::Tuple && x.items.size() == y.items.size()) {
            for (size_t k = 0; k < x.items.size(); ++k)
                if (!equal(x.items[k], y.items[k], depth + 1))
                    return false;
            return true;
        }
        return false;
    }

private:
    const Document& m_doc;
    std::unordered_map<uint32_t, std::pair<bool, uint64_t>> m_memo;
    size_t m_steps = 100000;

    bool spend()
    {
        if (m_steps == 0)
            return false;
        --m_steps;
        return true;
    }

    bool compute(const Value& v, uint64_t& out, int depth)
    {
        switch (v.kind) {
        case Kind::Bool:
        case Kind::Int:
            out = hashInt(v.integer);
            return true;
        case Kind::BigInt:
            out = hashDecimal(v.text);
            return true;
        case Kind::Float:
            return hashDouble(v.real, out);
        case Kind::Complex: {
            uint64_t re, im;
            if (!hashDouble(v.real, re) || !hashDouble(v.imag, im))
                return false;
            out = fixMinusOne(re + 1000003 * im);
            return true;
        }
        case Kind::Tuple: { // the xxHash-based tuplehash of 3.8+
            const uint64_t p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL, p5 = 2870177450012600261ULL;
            uint64_t acc = p5;
            for (uint32_t item : v.items) {
                uint64_t lane;
                if (!hash(item, lane, depth + 1))
                    return false;
                acc += lane * p2;
                acc = (acc << 31) | (acc >> 33);
                acc *= p1;
            }
            acc += uint64_t(v.items.size()) ^ (p5 ^ 3527539UL);
            out = acc == uint64_t(-1) ? 1546275796 : acc;
            return true;
        }
        default:
            return false;
        }
    }
};

/// The items of a set value in the order CPython iterates them (the stored order where unknown).
std::vector<uint32_t> setOrder(const Document& doc, const std::vector<uint32_t>& items)
{
    Hasher hasher(doc);
    std::vector<uint64_t> hashes(items.size());
    for (size_t k = 0; k < items.size(); ++k)
        if (!hasher.hash(items[k], hashes[k]))
            return items;
    struct Slot {
        int64_t item = -1;
        uint64_t hash = 0;
    };
    constexpr size_t kLinearProbes = 9;
    std::vector<Slot> table(8);
    size_t fill = 0;
    const auto insertClean = [](std::vector<Slot>& t, int64_t item, uint64_t hash) {
        const size_t mask = t.size() - 1;
        size_t perturb = hash, i = hash & mask;
        for (;;) {
            if (t[i].item < 0) {
                t[i] = { item, hash };
                return;
            }
            if (i + kLinearProbes <= mask) {
                for (size_t j = 1; j <= kLinearProbes; ++j) {
                    if (t[i + j].item < 0) {
                        t[i + j] = { item, hash };
                        return;
                    }
                }
            }
            perturb >>= 5;
            i = (i * 5 + 1 + perturb) & mask;
        }
    };
    for (size_t k = 0; k < items.size(); ++k) {
        const uint64_t hash = hashes[k];
        size_t mask = table.size() - 1, perturb = hash, i = hash & mask;
        bool present = false;
        for (;;) {
            const size_t probes = i + kLinearProbes <= mask ? kLinearProbes : 0;
            size_t j = 0;
            for (; j <= probes; ++j) {
                const Slot& slot = table[i + j];
                if (slot.item < 0)
                    break;
                if (slot.hash == hash && hasher.equal(items[size_t(slot.item)], items[k])) {
                    present = true;
                    break;
                }
            }
            if (present || j <= probes) {
                if (!present)
                    table[i + j] = { int64_t(k), hash };
                break;
            }
            perturb >>= 5;
            i = (i * 5 + 1 + perturb) & mask;
        }
        if (present)
            continue;
        if (++fill * 5 < mask * 3)
            continue;
        size_t newSize = 8;
        while (newSize <= (fill > 50000 ? fill * 2 : fill * 4)) // used == fill: no dummies
            newSize <<= 1;
        std::vector<Slot> bigger(newSize);
        for (const Slot& slot : table)
            if (slot.item >= 0)
                insertClean(bigger, slot.item, slot.hash);
        table.swap(bigger);
    }
    if (hasher.exhausted())
        return items;
    std::vector<uint32_t> out;
    for (const Slot& slot : table)
        if (slot.item >= 0)
            out.push_back(items[size_t(slot.item)]);
    return out;
}

class ReprWriter {
public:
    ReprWriter(const Document& doc, size_t maxChars)
        : m_doc(doc)
        , m_max(maxChars)
    {
    }

    std::string run(uint32_t id)
    {
        write(id);
        if (m_out.size() > m_max) {
            size_t cut = m_max;
            while (cut > 0 && (static_cast<unsigned char>(m_out[cut]) & 0xC0) == 0x80)
                --cut; // not inside a UTF-8 sequence
            m_out.resize(cut);
            m_out += "...";
        }
        return std::move(m_out);
    }

private:
    const Document& m_doc;
    size_t m_max;
    std::string m_out;
    std::vector<uint32_t> m_active; ///< containers being printed (cycles print as "...")

    bool full() const { return m_out.size() > m_max; }

    [[gnu::noinline]] std::vector<uint32_t> orderOf(const Value& set) const
    {
        return set.items.size() <= kMaxOrderedSet ? setOrder(m_doc, set.items) : set.items;
    }

    /// Items separated by ", "; `step` 2: key: value pairs.
    [[gnu::noinline]] void items(const std::vector<uint32_t>& ids, size_t step)
    {
        for (size_t k = 0; k < ids.size() && !full(); k += step) {
            if (k)
                m_out += ", ";
            write(ids[k]);
            if (step == 2 && k + 1 < ids.size()) {
                m_out += ": ";
                write(ids[k + 1]);
            }
        }
    }

    // write() and container() recurse once per nesting level: their frames stay small (2000 levels
    // fit a thread's stack in a sanitizer build), the leaves are printed out of line.
    [[gnu::noinline]] void write(uint32_t id)
    {
        if (full())
            return;
        if (id >= m_doc.values.size()) {
            m_out += "<no value>";
            return;
        }
        const Value& v = m_doc.values[id];
        switch (v.kind) {
        case Kind::Tuple:
        case Kind::List:
        case Kind::Dict:
        case Kind::Set:
        case Kind::FrozenSet:
            container(id, v);
            return;
        default:
            leaf(id, v);
            return;
        }
    }

    [[gnu::noinline]] void leaf(uint32_t id, const Value& v)
    {
        switch (v.kind) {
        case Kind::Null:
            m_out += "<NULL>";
            return;
        case Kind::None:
            m_out += "None";
            return;
        case Kind::Bool:
            m_out += v.integer ? "True" : "False";
            return;
        case Kind::StopIteration:
            m_out += "<class 'StopIteration'>";
            return;
        case Kind::Ellipsis:
            m_out += "Ellipsis";
            return;
        case Kind::Int:
            m_out += std::to_string(v.integer);
            return;
        case Kind::BigInt:
            m_out += v.text;
            return;
        case Kind::Float:
            m_out += pyFloatRepr(v.real);
            return;
        case Kind::Complex:
            if (v.real == 0 && !std::signbit(v.real))
                m_out += complexPart(v.imag, false) + "j";
            else
                m_out += "(" + complexPart(v.real, false) + complexPart(v.imag, true) + "j)";
            return;
        case Kind::Str:
        case Kind::Bytes:
            if (v.kind == Kind::Bytes)
                m_out += 'b';
            appendPyQuoted(m_out, v.text, v.kind == Kind::Bytes);
            return;
        case Kind::Code:
            m_out += codeRepr(id);
            return;
        default:
            return;
        }
    }

    [[gnu::noinline]] void container(uint32_t id, const Value& v)
    {
        struct Shape {
            const char *open, *close, *cycle, *empty;
        };
        static const Shape shapes[]
            = { { "(", ")", "(...)", "()" }, { "[", "]", "[...]", "[]" }, { "{", "}", "{...}", "{}" },
                  { "{", "}", "set(...)", "set()" }, { "frozenset({", "})", "frozenset(...)", "frozenset()" } };
        const Shape& shape = shapes[v.kind == Kind::Tuple ? 0
                : v.kind == Kind::List                    ? 1
                : v.kind == Kind::Dict                    ? 2
                : v.kind == Kind::Set                     ? 3
                                                          : 4];
        if (isActive(id)) {
            m_out += shape.cycle;
            return;
        }
        if (v.items.empty()) {
            m_out += shape.empty;
            return;
        }
        m_active.push_back(id);
        m_out += shape.open;
        if (v.kind == Kind::Set || v.kind == Kind::FrozenSet)
            items(orderOf(v), 1);
        else
            items(v.items, v.kind == Kind::Dict ? 2 : 1);
        if (v.kind == Kind::Tuple && v.items.size() == 1)
            m_out += ',';
        m_out += shape.close;
        m_active.pop_back();
    }

    bool isActive(uint32_t id) const { return std::find(m_active.begin(), m_active.end(), id) != m_active.end(); }

    std::string codeRepr(uint32_t id) const
    {
        const Value& v = m_doc.values[id];
        if (v.code >= m_doc.codes.size())
            return "<code object (being read)>";
        const Code& c = m_doc.codes[v.code];
        // A stable fake address: the object's offset in the input, in a typical heap range.
        char address[32];
        std::snprintf(address, sizeof address, "0x7f%010llx", (unsigned long long)(c.offset * 16 + 0x10000));
        return "<code object " + c.name + " at " + address + ", file \"" + c.filename + "\", line "
            + std::to_string(c.firstLineNo != 0 ? c.firstLineNo : -1) + ">";
    }
};

} // namespace

std::string repr(const Document& doc, uint32_t id, size_t maxChars)
{
    return ReprWriter(doc, maxChars).run(id);
}

} // namespace engine::marshal
