#include "engine/pickle/pickle_vm.h"

#include <charconv>

namespace engine::pickle::detail {

std::string describe(Kind k)
{
    switch (k) {
    case Kind::Int:
    case Kind::BigInt:
    case Kind::Object:
    case Kind::Extension:
        return std::string("an ") + kindName(k);
    default:
        return std::string("a ") + kindName(k);
    }
}

std::string_view trimSpaces(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool Reader::pushBigInt(std::string_view le)
{
    int64_t i;
    if (twosComplementToInt64(le, i))
        return pushInt(i);
    // Drop sign-extension bytes: LONG4 may carry any number of them.
    const bool negative = static_cast<unsigned char>(le.back()) & 0x80;
    const char fill = negative ? char(0xFF) : char(0);
    while (
        le.size() > 1 && le.back() == fill && ((static_cast<unsigned char>(le[le.size() - 2]) & 0x80) != 0) == negative)
        le.remove_suffix(1);
    return pushText(Kind::BigInt, le);
}

/// INT and LONG text (protocol 0): [sign] digits, LONG with a trailing L.
bool Reader::pushDecimal(std::string_view text, bool isInt)
{
    std::string_view s = trimSpaces(text);
    if (!isInt && !s.empty() && s.back() == 'L')
        s.remove_suffix(1);
    bool negative = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return fail(op() + " argument '" + std::string(text.substr(0, 40)) + "' is not an integer");
    while (s.size() > 1 && s.front() == '0')
        s.remove_prefix(1);
    if (s.size() > m_limits.maxIntDigits)
        return fail(op() + " literal has " + std::to_string(s.size()) + " digits, more than "
            + std::to_string(m_limits.maxIntDigits) + " (Limits::maxIntDigits)");
    if (s.size() <= 18) {
        int64_t v = 0;
        for (char c : s)
            v = v * 10 + (c - '0');
        if (negative)
            v = -v;
        if (isInt && text.size() == 2 && (v == 0 || v == 1)) // protocol 0 writes True as I01
            return pushSingleton(v ? m_true : m_false, Kind::Bool, uint64_t(v));
        return pushInt(v);
    }
    const std::string le = decimalToTwosComplement(s, negative);
    return pushBigInt(le);
}

bool Reader::addNode(Kind kind, const uint32_t* items, size_t n, uint32_t& id)
{
    if (n > kMaxCount)
        return fail(op() + " with " + std::to_string(n) + " items is too long");
    Value v;
    v.kind = kind;
    v.size = uint32_t(n);
    v.data = m_doc.children.size();
    if (!add(v, id))
        return false;
    m_doc.children.insert(m_doc.children.end(), items, items + n);
    return true;
}

bool Reader::collapseMark(Kind kind)
{
    size_t mark = 0;
    if (!popMark(mark))
        return false;
    const size_t n = m_stack.size() - mark;
    if (kind == Kind::Dict && n % 2)
        return fail("odd number of items for " + op());
    uint32_t id;
    if (!addNode(kind, m_stack.data() + mark, n, id))
        return false;
    m_stack.resize(mark);
    return push(id);
}

bool Reader::collapseTop(Kind kind, size_t n)
{
    if (m_stack.size() < fence() + n)
        return underflow();
    uint32_t id;
    if (!addNode(kind, m_stack.data() + m_stack.size() - n, n, id))
        return false;
    m_stack.resize(m_stack.size() - n);
    return push(id);
}

/// Children are appended where they are cheapest. A container whose children end the array (the
/// usual case: EMPTY_LIST, its items, APPENDS) grows in place. One that does not moves its
/// children to the end, with as much room again behind them, so that two lists filled in turn
/// cost amortised linear time; the old places are garbage, which compactChildren() drops when it
/// is much.
bool Reader::appendChildren(uint32_t id, const uint32_t* items, size_t n)
{
    auto& children = m_doc.children;
    const uint64_t first = m_doc.values[id].data;
    const uint64_t size = m_doc.values[id].size;
    if (size + n > kMaxCount)
        return fail(op() + ": more than " + std::to_string(kMaxCount) + " items in one container");
    if (first + size == children.size()) {
        children.insert(children.end(), items, items + n);
    } else {
        uint64_t capacity = size;
        if (!m_capacity.empty())
            if (auto it = m_capacity.find(id); it != m_capacity.end())
                capacity = std::max(capacity, it->second);
        if (size + n <= capacity) {
            std::copy(items, items + n, children.begin() + std::ptrdiff_t(first + size));
        } else {
            const uint64_t newFirst = children.size();
            const uint64_t newCapacity = size == 0 ? n : 2 * (size + n);
            children.resize(size_t(newFirst + newCapacity), kNoValue);
            std::copy(children.begin() + std::ptrdiff_t(first), children.begin() + std::ptrdiff_t(first + size),
                children.begin() + std::ptrdiff_t(newFirst));
            std::copy(items, items + n, children.begin() + std::ptrdiff_t(newFirst + size));
            m_wasted += capacity + (newCapacity - size - n);
            m_doc.values[id].data = newFirst;
            if (newCapacity > size + n)
                m_capacity[id] = newCapacity;
        }
    }
    m_doc.values[id].size = uint32_t(size + n);
    return true;
}

/// The container below the items an APPEND/SETITEM/ADDITEMS adds to: a value of `wanted` kind, or
/// an Object (a list or dict subclass that pickle fills the same way), whose `objectSlot` then
/// holds a container of `wanted` kind made on first use.
bool Reader::target(Kind wanted, ObjectSlot objectSlot, uint32_t& id)
{
    const Kind k = m_doc.values[id].kind;
    if (k == wanted)
        return true;
    if (k != Kind::Object || wanted == Kind::Set)
        return fail(op() + " onto " + describe(k) + " (needs " + describe(wanted) + ")");
    const uint64_t slot = m_doc.values[id].data + objectSlot;
    if (m_doc.children[slot] == kNoValue) {
        uint32_t made;
        if (!addNode(wanted, nullptr, 0, made))
            return false;
        m_doc.children[slot] = made;
    }
    id = m_doc.children[slot];
    return true;
}

/// APPENDS, SETITEMS, ADDITEMS: the items above `mark` go into the container just below it.
bool Reader::addToTarget(Kind wanted, ObjectSlot objectSlot, size_t mark)
{
    const size_t n = m_stack.size() - mark;
    if (mark <= fence())
        return underflow();
    if (n == 0) // _pickle.c does nothing, not even look at the target
        return true;
    if (wanted == Kind::Dict && n % 2)
        return fail("odd number of items for " + op());
    uint32_t id = m_stack[mark - 1];
    if (!target(wanted, objectSlot, id) || !appendChildren(id, m_stack.data() + mark, n))
        return false;
    m_stack.resize(mark);
    return true;
}

bool Reader::requireKind(uint32_t id, Kind kind, const char* what)
{
    const Kind k = m_doc.values[id].kind;
    if (k == kind)
        return true;
    return fail(op() + " " + what + " must be " + describe(kind) + ", not " + describe(k));
}

bool Reader::newObject(ObjectHow how, uint32_t cls, uint32_t args, uint32_t kwargs)
{
    uint32_t slots[kObjSlotCount] = { kNoValue, kNoValue, kNoValue, kNoValue, kNoValue, kNoValue };
    slots[kObjClass] = cls;
    slots[kObjArgs] = args;
    slots[kObjKwargs] = kwargs;
    uint32_t id;
    if (!addNode(Kind::Object, slots, kObjSlotCount, id))
        return false;
    m_doc.values[id].how = how;
    return push(id);
}

bool Reader::memoPut(uint64_t index)
{
    uint32_t id;
    if (!top(id))
        return false;
    if (index == m_memo.size() && m_sparseMemo.empty()) { // MEMOIZE, and what pickle.py writes
        m_memo.push_back(id);
        ++m_memoCount;
    } else if (index < m_memo.size()) {
        if (m_memo[index] == kNoValue) {
            if (!m_sparseMemo.empty() && m_sparseMemo.erase(index))
                --m_memoCount;
            ++m_memoCount;
        }
        m_memo[index] = id;
    } else if (index < 2 * m_memoCount + 4096) { // dense: its size stays within twice the entries
        m_memo.resize(size_t(index + 1), kNoValue);
        if (!m_sparseMemo.empty() && m_sparseMemo.erase(index))
            --m_memoCount;
        m_memo[index] = id;
        ++m_memoCount;
    } else {
        if (m_sparseMemo.insert_or_assign(index, id).second)
            ++m_memoCount;
    }
    if (m_memoCount > m_limits.maxMemo)
        return fail("more than " + std::to_string(m_limits.maxMemo) + " memo entries (Limits::maxMemo)");
    return true;
}

bool Reader::memoGet(uint64_t index)
{
    uint32_t id = index < m_memo.size() ? m_memo[index] : kNoValue;
    if (id == kNoValue && !m_sparseMemo.empty())
        if (auto it = m_sparseMemo.find(index); it != m_sparseMemo.end())
            id = it->second;
    if (id == kNoValue)
        return fail(op() + ": memo key " + std::to_string(index) + " is not defined");
    return push(id);
}

/// PUT's and GET's decimal argument.
bool Reader::lineIndex(uint64_t& index)
{
    std::string_view line;
    if (!readLine(line))
        return false;
    std::string_view s = trimSpaces(line);
    if (!s.empty() && s.front() == '-')
        return fail("negative " + op() + " argument");
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), index);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return fail(op() + " argument '" + std::string(line.substr(0, 40)) + "' is not a memo index");
    return true;
}

void Reader::noteFinding(Finding::What what, std::string module, std::string name, uint32_t value)
{
    std::string key = std::to_string(int(what)) + ':' + std::to_string(module.size()) + ':' + module + name;
    auto [it, inserted] = m_findingIndex.emplace(std::move(key), m_doc.findings.size());
    if (!inserted) {
        ++m_doc.findings[it->second].count;
        return;
    }
    Finding f;
    f.what = what;
    f.module = std::move(module);
    f.name = std::move(name);
    f.offset = m_opOffset;
    f.count = 1;
    f.value = value;
    m_doc.findings.push_back(std::move(f));
}

bool Reader::makeGlobal(uint32_t moduleStr, uint32_t nameStr, uint32_t& id)
{
    const uint32_t names[2] = { moduleStr, nameStr };
    if (!addNode(Kind::Global, names, 2, id))
        return false;
    const std::string_view module = m_doc.str(moduleStr), name = m_doc.str(nameStr);
    if (!m_options.allow || !m_options.allow->allows(module, name))
        noteFinding(Finding::What::Class, std::string(module), std::string(name), id);
    return true;
}

bool Reader::pushGlobal(std::string_view module, std::string_view name, uint32_t& id)
{
    uint32_t m, n;
    return addText(Kind::Str, module, m) && addText(Kind::Str, name, n) && makeGlobal(m, n, id) && push(id);
}

} // namespace engine::pickle::detail
