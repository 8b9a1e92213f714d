// The streaming pickle machine: input, opcodes, stack, memo and containers. The conversion of
// dicts into records is in snapshot_records.cpp.
#include "engine/snapshot/snapshot_vm.h"

#include "engine/core/file_io.h"
#include "engine/pickle/pickle_vm.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>

namespace engine::snapshot {

namespace detail {

using namespace engine::pickle::detail;

namespace {

constexpr uint64_t kChunk = uint64_t(1) << 20;
constexpr uint64_t kProgressStep = uint64_t(16) << 20;
constexpr uint64_t kMaxStack = uint64_t(1) << 26;
constexpr uint64_t kMaxMemo = uint64_t(1) << 32;

const char* const kKnown[K_Count] = { "segments", "device_traces", "allocator_settings", "device", "address",
    "total_size", "allocated_size", "active_size", "requested_size", "stream", "segment_type", "segment_pool_id",
    "is_expandable", "frames", "blocks", "size", "state", "history", "addr", "real_size", "filename", "line", "name",
    "fx_node_op", "fx_node_name", "fx_original_trace", "action", "time_us", "pool_id", "device_free", "user_metadata",
    "compile_context", "small", "large", "active_allocated", "active_pending_free", "active_awaiting_free", "inactive",
    "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "segment_map", "segment_unmap", "oom",
    "snapshot", "annotate" };

} // namespace

const char* knownString(uint32_t key)
{
    return key < K_Count ? kKnown[key] : "?";
}

namespace {

std::string opName(uint8_t op)
{
    const std::string_view n = engine::pickle::opcodeName(op);
    return n.empty() ? std::string("opcode") : std::string(n);
}

} // namespace

bool SnapshotInput::refill(uint64_t n)
{
    if (!m_file)
        return false;
    const uint64_t kept = uint64_t(m_end - m_p);
    const uint64_t want = std::min<uint64_t>(std::max<uint64_t>(n, kChunk), kept + (m_total - offset() - kept));
    const uint64_t base = offset();
    if (m_buffer.size() < want || m_buffer.size() > 4 * std::max<uint64_t>(want, kChunk)) {
        std::vector<unsigned char> grown(size_t(std::max(want, kChunk)));
        if (kept)
            std::memcpy(grown.data(), m_p, size_t(kept));
        m_buffer.swap(grown);
    } else if (kept) {
        std::memmove(m_buffer.data(), m_p, size_t(kept));
    }
    const size_t got = std::fread(m_buffer.data() + kept, 1, size_t(want - kept), m_file);
    m_window = m_buffer.data();
    m_p = m_window;
    m_end = m_window + kept + got;
    m_base = base;
    if (got < want - kept) // the file shrank while we read it: it ends here
        m_total = m_base + kept + got;
    return uint64_t(m_end - m_p) >= n;
}

SnapshotVm::SnapshotVm(SnapshotInput& in, const std::string& path, const ReadOptions& options)
    : m_in(in)
    , m_path(path)
    , m_options(options)
{
    for (uint32_t k = 0; k < K_Count; ++k) {
        m_strings.emplace_back(kKnown[k]);
        m_stringIds.emplace(m_strings.back(), k);
    }
}

bool SnapshotVm::fail(std::string message)
{
    if (!m_error)
        m_error
            = makeError(ErrorCode::ParseError, std::move(message), m_path + ": offset " + std::to_string(m_opOffset));
    return false;
}

bool SnapshotVm::failAt(const std::string& place, std::string message)
{
    if (!m_error)
        m_error = makeError(ErrorCode::ParseError, std::move(message), m_path + ": " + place);
    return false;
}

bool SnapshotVm::need(uint64_t n)
{
    if (m_in.left() < n)
        return fail("truncated " + opName(m_op) + " (needs " + std::to_string(n) + " bytes, "
            + std::to_string(m_in.left()) + " left)");
    if (!m_in.ensure(n))
        return fail("the file ended early in " + opName(m_op) + " (it changed while being read?)");
    return true;
}

bool SnapshotVm::readFixed(int n, uint64_t& v)
{
    if (!need(uint64_t(n)))
        return false;
    v = readLe(m_in.cur(), n);
    m_in.advance(uint64_t(n));
    return true;
}

bool SnapshotVm::readView(uint64_t n, std::string_view& s)
{
    if (!need(n))
        return false;
    s = std::string_view(reinterpret_cast<const char*>(m_in.cur()), size_t(n));
    m_in.advance(n);
    return true;
}

bool SnapshotVm::skipBytes(uint64_t n)
{
    if (m_in.left() < n)
        return need(n);
    while (n > 0) { // in chunks: a huge bytes value needs no huge buffer
        const uint64_t part = std::min<uint64_t>(n, kChunk);
        if (!need(part))
            return false;
        m_in.advance(part);
        n -= part;
    }
    return true;
}

bool SnapshotVm::push(const Val& v)
{
    if (m_stack.size() + m_marks.size() >= kMaxStack)
        return fail("the stack grows beyond " + std::to_string(kMaxStack) + " entries");
    m_stack.push_back(v);
    return true;
}

bool SnapshotVm::pop(Val& v)
{
    const size_t fence = m_marks.empty() ? 0 : m_marks.back();
    if (m_stack.size() <= fence)
        return fail("stack underflow in " + opName(m_op));
    v = m_stack.back();
    m_stack.pop_back();
    return true;
}

bool SnapshotVm::popMark(size_t& mark)
{
    if (m_marks.empty())
        return fail(opName(m_op) + " without a MARK before it");
    mark = m_marks.back();
    m_marks.pop_back();
    return true;
}

bool SnapshotVm::pushString(std::string_view s, bool checkUtf8)
{
    if (checkUtf8 && !isUtf8(s))
        return fail(opName(m_op) + " string is not valid UTF-8");
    Val v;
    v.kind = VK::Str;
    return intern(s, v.ref) && push(v);
}

bool SnapshotVm::intern(std::string_view s, uint32_t& id)
{
    if (auto it = m_stringIds.find(s); it != m_stringIds.end()) {
        id = it->second;
        return true;
    }
    if (m_strings.size() >= UINT32_MAX - 1)
        return fail("more than 4 billion distinct strings");
    id = uint32_t(m_strings.size());
    m_strings.emplace_back(s);
    m_stringIds.emplace(m_strings.back(), id);
    return true;
}

/// LONG1/LONG4: an int64, a uint64 of 2^63 or more (9 bytes, the last 0), or wider.
bool SnapshotVm::pushLong(std::string_view le)
{
    Val v;
    int64_t i = 0;
    if (twosComplementToInt64(le, i)) {
        v.kind = VK::Int;
        v.bits = uint64_t(i);
        return push(v);
    }
    const bool negative = static_cast<unsigned char>(le.back()) & 0x80;
    bool fits = !negative && le.size() >= 8;
    for (size_t k = 8; fits && k < le.size(); ++k)
        fits = le[k] == 0;
    v.kind = fits ? VK::UInt : VK::BigInt;
    if (fits)
        v.bits = readLe(reinterpret_cast<const unsigned char*>(le.data()), 8);
    return push(v);
}

bool SnapshotVm::newContainer(VK kind, uint32_t& slot)
{
    if (!m_freeSlots.empty()) {
        slot = m_freeSlots.back();
        m_freeSlots.pop_back();
    } else {
        if (m_slots.size() >= UINT32_MAX - 1)
            return fail("more than 4 billion containers");
        slot = uint32_t(m_slots.size());
        m_slots.emplace_back();
    }
    Container& c = m_slots[slot];
    c.kind = kind;
    c.live = true;
    c.closed = false;
    c.converted = false;
    c.memoIndex = UINT64_MAX;
    c.firstOther = UINT64_MAX;
    return true;
}

bool SnapshotVm::pushNew(VK kind)
{
    uint32_t slot;
    if (!newContainer(kind, slot))
        return false;
    Val v;
    v.kind = kind;
    v.ref = slot;
    v.bits = m_slots[slot].gen;
    return push(v);
}

Container* SnapshotVm::container(const Val& v)
{
    if (v.kind != VK::List && v.kind != VK::Tuple && v.kind != VK::Dict && v.kind != VK::Set)
        return nullptr;
    Container& c = m_slots[v.ref];
    if (!c.live || c.gen != v.bits) {
        fail(opName(m_op)
            + " uses a container again after it became a record (a shared block, segment or trace "
              "entry is not supported)");
        return nullptr;
    }
    return &c;
}

void SnapshotVm::memoReplace(uint32_t slot, const Val& replacement)
{
    const Container& c = m_slots[slot];
    if (c.memoIndex != UINT64_MAX)
        if (const Val* m = m_memo.find(c.memoIndex); m && m->ref == slot && m->bits == c.gen && m->kind == c.kind)
            m_memo.replace(c.memoIndex, replacement);
}

/// Frees a converted container and puts `replacement` where the memo held it.
void SnapshotVm::release(uint32_t slot, const Val& replacement)
{
    memoReplace(slot, replacement);
    Container& c = m_slots[slot];
    c.live = false;
    ++c.gen;
    c.items = {};
    c.records.reset();
    m_freeSlots.push_back(slot);
}

/// The open container of kind `wanted` at m_stack[below] (APPEND's list, SETITEM's dict).
bool SnapshotVm::openTarget(VK wanted, size_t below, Container*& target)
{
    const size_t fence = m_marks.empty() ? 0 : m_marks.back();
    if (below >= m_stack.size() || below < fence)
        return fail("stack underflow in " + opName(m_op));
    const Val& v = m_stack[below];
    if (v.kind != wanted && !(wanted == VK::List && v.kind == VK::Set))
        return fail(opName(m_op) + " onto something that is not a " + (wanted == VK::Dict ? "dict" : "list"));
    if (!(target = container(v)))
        return false;
    if (target->closed)
        return fail(opName(m_op) + " changes a container that was already used (only trees of plain data are read)");
    return true;
}

/// APPEND(S), SETITEM(S), ADDITEMS: the items from m_stack[mark] on go into the container below them.
bool SnapshotVm::addItems(VK wanted, size_t mark)
{
    const size_t n = m_stack.size() - mark;
    if (n == 0)
        return true;
    if (mark == 0)
        return fail("stack underflow in " + opName(m_op));
    if (wanted == VK::Dict && n % 2)
        return fail("odd number of items for " + opName(m_op));
    Container* target = nullptr;
    if (!openTarget(wanted, mark - 1, target))
        return false;
    const uint32_t slot = m_stack[mark - 1].ref;
    for (size_t k = mark; k < m_stack.size(); ++k) {
        Val v = m_stack[k];
        if (!receive(v, wanted == VK::Dict ? nullptr : &m_slots[slot]))
            return false;
        if (v.kind != VK::Taken) {
            Container& list = m_slots[slot]; // m_slots may have grown: no reference kept
            if (list.firstOther == UINT64_MAX && wanted != VK::Dict)
                list.firstOther = list.items.size() + (list.records ? list.records->count() : 0);
            list.items.push_back(v);
        }
    }
    m_stack.resize(mark);
    return true;
}

/// LIST, DICT, TUPLE, TUPLE1-3, FROZENSET: the items from m_stack[from] on become one container.
bool SnapshotVm::collapse(VK kind, size_t from)
{
    const size_t n = m_stack.size() - from;
    if (kind == VK::Dict && n % 2)
        return fail("odd number of items for " + opName(m_op));
    if (kind == VK::Tuple && n == 2) { // a pool id: interned, not a container
        const Val a = m_stack[from], b = m_stack[from + 1];
        const auto nonNegative
            = [](const Val& v) { return v.kind == VK::UInt || (v.kind == VK::Int && int64_t(v.bits) >= 0); };
        if (nonNegative(a) && nonNegative(b)) {
            std::string key(16, '\0');
            std::memcpy(&key[0], &a.bits, 8);
            std::memcpy(&key[8], &b.bits, 8);
            auto [it, inserted] = m_pairIds.emplace(std::move(key), uint32_t(m_pairs.size()));
            if (inserted)
                m_pairs.push_back(memory::PoolId { a.bits, b.bits });
            m_stack.resize(from);
            Val v;
            v.kind = VK::Pair;
            v.ref = it->second;
            return push(v);
        }
    }
    uint32_t slot;
    if (!newContainer(kind, slot))
        return false;
    for (size_t k = from; k < m_stack.size(); ++k) {
        Val v = m_stack[k];
        if (!receive(v, kind == VK::List ? &m_slots[slot] : nullptr))
            return false;
        if (v.kind != VK::Taken)
            m_slots[slot].items.push_back(v);
    }
    m_slots[slot].closed = kind == VK::Tuple;
    m_stack.resize(from);
    Val v;
    v.kind = kind;
    v.ref = slot;
    v.bits = m_slots[slot].gen;
    return push(v);
}

namespace {
/// A never-memoized slot of a dense chunk.
bool isHole(const Val& v) { return v.kind == VK::Taken && v.bits == UINT64_MAX; }
bool isTaken(const Val& v) { return v.kind == VK::Taken && v.bits != UINT64_MAX; }
const Val kTakenVal { VK::Taken, 0, 0 };
} // namespace

const Val* MemoTable::find(uint64_t index) const
{
    const uint64_t c = index >> kBits;
    if (c < m_chunks.size()) {
        const Chunk& chunk = m_chunks[size_t(c)];
        if (chunk.freed)
            return &kTakenVal;
        if (chunk.slots) {
            const Val& v = chunk.slots[index & (kSize - 1)];
            return isHole(v) ? nullptr : &v;
        }
    }
    auto it = m_sparse.find(index);
    return it != m_sparse.end() ? &it->second : nullptr;
}

Val* MemoTable::slot(uint64_t index)
{
    Chunk& chunk = m_chunks[size_t(index >> kBits)];
    if (!chunk.slots) {
        chunk.slots.reset(new Val[kSize]);
        // A freed chunk held only taken records; a new one only holes.
        const Val fill = chunk.freed ? kTakenVal : Val { VK::Taken, 0, UINT64_MAX };
        std::fill(chunk.slots.get(), chunk.slots.get() + kSize, fill);
        chunk.freed = false;
    }
    return &chunk.slots[index & (kSize - 1)];
}

void MemoTable::account(Chunk& c, const Val& old, const Val& now)
{
    if (isHole(old) && !isHole(now))
        ++c.assigned;
    c.taken += uint32_t(isTaken(now)) - uint32_t(isTaken(old));
    if (c.assigned == kSize && c.taken == kSize) {
        c.slots.reset();
        c.freed = true;
    }
}

bool MemoTable::put(uint64_t index, const Val& v, uint64_t maxEntries)
{
    const uint64_t c = index >> kBits;
    const bool known = find(index) != nullptr;
    if (!known && ++m_count > maxEntries)
        return false;
    // Dense while the index stays within twice the entries (pickle.py counts up from 0).
    if (c < m_chunks.size() || index < 2 * m_count + kSize) {
        if (c >= m_chunks.size())
            m_chunks.resize(size_t(c) + 1);
        Val* s = slot(index);
        const Val old = *s;
        *s = v;
        account(m_chunks[size_t(c)], old, v);
        return true;
    }
    m_sparse[index] = v;
    return true;
}

void MemoTable::replace(uint64_t index, const Val& v)
{
    const uint64_t c = index >> kBits;
    if (c < m_chunks.size() && (m_chunks[size_t(c)].slots || m_chunks[size_t(c)].freed)) {
        Val* s = slot(index);
        const Val old = *s;
        *s = v;
        account(m_chunks[size_t(c)], old, v);
        return;
    }
    if (auto it = m_sparse.find(index); it != m_sparse.end())
        it->second = v;
}

bool SnapshotVm::memoPut(uint64_t index)
{
    if (m_stack.empty() || m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
        return fail("stack underflow in " + opName(m_op));
    const Val v = m_stack.back();
    if (!m_memo.put(index, v, kMaxMemo))
        return fail("more than " + std::to_string(kMaxMemo) + " memo entries");
    if (Container* c = container(v))
        c->memoIndex = index;
    return !m_error;
}

bool SnapshotVm::memoGet(uint64_t index)
{
    const Val* v = m_memo.find(index);
    if (!v)
        return fail(opName(m_op) + ": memo key " + std::to_string(index) + " is not defined");
    if (v->kind == VK::Taken)
        return fail(opName(m_op) + ": memo key " + std::to_string(index)
            + " is a block, segment or trace entry already taken by its list (shared records are not supported)");
    return push(*v);
}

bool SnapshotVm::refuse(const std::string& what)
{
    return fail(what + " refused: a memory snapshot holds plain data only, and no class is ever looked up or called");
}

Result<Snapshot> SnapshotVm::run()
{
    m_snap.path = m_path;
    if (m_in.total() == 0)
        return makeError(ErrorCode::ParseError, "empty input: no pickle", m_path);
    m_nextProgress = kProgressStep;
    for (;;) {
        m_opOffset = m_in.offset();
        if (m_in.left() == 0) {
            fail("truncated: the input ends before STOP");
            return *m_error;
        }
        if (m_opOffset >= m_nextProgress && m_options.progress) {
            if (!m_options.progress(m_opOffset, m_in.total()))
                return makeError(ErrorCode::Cancelled, "cancelled", m_path);
            m_nextProgress = m_opOffset + kProgressStep;
        }
        if (!m_in.ensure(1)) {
            fail("the file ended early (it changed while being read?)");
            return *m_error;
        }
        m_op = *m_in.cur();
        m_in.advance(1);
        if (!step())
            return *m_error;
        if (m_op == pickle::detail::STOP)
            break;
    }
    if (m_in.left() > 0)
        m_snap.warnings.push_back("offset " + std::to_string(m_in.offset()) + ": " + std::to_string(m_in.left())
            + " bytes after STOP ignored");
    if (m_options.progress && !m_options.progress(m_in.total(), m_in.total()))
        return makeError(ErrorCode::Cancelled, "cancelled", m_path);
    // A warning is kept once, at the offset where it was first met; it says how often it was met.
    for (std::string& w : m_snap.warnings) {
        const size_t colon = w.find(": ");
        const auto seen = colon == std::string::npos ? m_warned.end() : m_warned.find(w.substr(colon + 2));
        if (seen != m_warned.end() && seen->second > 1)
            w += " (" + std::to_string(seen->second) + " times; the first here)";
    }
    return std::move(m_snap);
}

bool SnapshotVm::step()
{
    uint64_t n = 0;
    std::string_view s;
    Val a, b;
    size_t mark = 0;
    switch (m_op) {
    case MARK:
        if (m_stack.size() + m_marks.size() >= kMaxStack)
            return fail("the stack grows beyond " + std::to_string(kMaxStack) + " entries");
        m_marks.push_back(m_stack.size());
        return true;
    case STOP:
        if (!pop(a))
            return false;
        return finishRoot(a);
    case POP:
        if (!m_marks.empty() && m_marks.back() == m_stack.size()) {
            m_marks.pop_back();
            return true;
        }
        return pop(a);
    case POP_MARK:
        if (!popMark(mark))
            return false;
        m_stack.resize(mark);
        return true;
    case DUP:
        return pop(a) && push(a) && push(a);
    case NONE:
        return push(Val {});
    case NEWTRUE:
    case NEWFALSE:
        return push(Val { VK::Bool, 0, m_op == NEWTRUE ? 1u : 0u });
    case BININT:
        return readFixed(4, n) && push(Val { VK::Int, 0, uint64_t(int64_t(int32_t(uint32_t(n)))) });
    case BININT1:
    case BININT2:
        return readFixed(m_op == BININT1 ? 1 : 2, n) && push(Val { VK::Int, 0, n });
    case LONG1:
    case LONG4:
        if (!readFixed(m_op == LONG1 ? 1 : 4, n))
            return false;
        if (m_op == LONG4 && int32_t(uint32_t(n)) < 0)
            return fail("LONG4 with a negative byte count");
        if (n == 0)
            return push(Val { VK::Int, 0, 0 });
        if (n > 64) // only a mark is kept of an integer this wide
            return skipBytes(n) && push(Val { VK::BigInt, 0, 0 });
        return readView(n, s) && pushLong(s);
    case BINFLOAT: {
        if (!need(8))
            return false;
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) // big-endian
            bits = (bits << 8) | m_in.cur()[k];
        m_in.advance(8);
        return push(Val { VK::Float, 0, bits });
    }
    case SHORT_BINUNICODE:
    case SHORT_BINSTRING:
        return readFixed(1, n) && readView(n, s) && pushString(s, m_op == SHORT_BINUNICODE);
    case BINUNICODE:
    case BINSTRING:
        return readFixed(4, n) && readView(n, s) && pushString(s, m_op == BINUNICODE);
    case BINUNICODE8:
        return readFixed(8, n) && readView(n, s) && pushString(s, true);
    case SHORT_BINBYTES:
        return readFixed(1, n) && skipBytes(n) && push(Val { VK::Bytes, 0, 0 });
    case BINBYTES:
        return readFixed(4, n) && skipBytes(n) && push(Val { VK::Bytes, 0, 0 });
    case BINBYTES8:
    case BYTEARRAY8:
        return readFixed(8, n) && skipBytes(n) && push(Val { VK::Bytes, 0, 0 });

    case EMPTY_DICT:
        return pushNew(VK::Dict);
    case EMPTY_LIST:
        return pushNew(VK::List);
    case EMPTY_SET:
        return pushNew(VK::Set);
    case EMPTY_TUPLE:
        return collapse(VK::Tuple, m_stack.size());
    case TUPLE1:
    case TUPLE2:
    case TUPLE3: {
        const size_t k = size_t(m_op - TUPLE1 + 1);
        const size_t fence = m_marks.empty() ? 0 : m_marks.back();
        if (m_stack.size() < fence + k)
            return fail("stack underflow in " + opName(m_op));
        return collapse(VK::Tuple, m_stack.size() - k);
    }
    case TUPLE:
    case LIST:
    case DICT:
    case FROZENSET:
        return popMark(mark)
            && collapse(m_op == TUPLE ? VK::Tuple
                    : m_op == LIST    ? VK::List
                    : m_op == DICT    ? VK::Dict
                                      : VK::Set,
                mark);
    case APPEND:
    case SETITEM: {
        const size_t k = m_op == APPEND ? 1 : 2;
        const size_t fence = m_marks.empty() ? 0 : m_marks.back();
        if (m_stack.size() < fence + k + 1)
            return fail("stack underflow in " + opName(m_op));
        return addItems(m_op == APPEND ? VK::List : VK::Dict, m_stack.size() - k);
    }
    case APPENDS:
    case SETITEMS:
    case ADDITEMS:
        return popMark(mark) && addItems(m_op == SETITEMS ? VK::Dict : VK::List, mark);

    case MEMOIZE:
        return memoPut(m_memo.count());
    case BINPUT:
    case LONG_BINPUT:
        return readFixed(m_op == BINPUT ? 1 : 4, n) && memoPut(n);
    case BINGET:
    case LONG_BINGET:
        return readFixed(m_op == BINGET ? 1 : 4, n) && memoGet(n);

    case PROTO:
        if (!readFixed(1, n))
            return false;
        if (n > 5)
            return fail("unsupported pickle protocol " + std::to_string(n));
        m_snap.protocol = int(n);
        return true;
    case FRAME:
        if (!readFixed(8, n))
            return false;
        if (n > m_in.left())
            return fail("truncated: FRAME of " + std::to_string(n) + " bytes, but only " + std::to_string(m_in.left())
                + " bytes are left");
        return true;

    case GLOBAL: {
        std::string_view line;
        std::string name;
        for (int part = 0; part < 2; ++part) {
            uint64_t len = 0;
            while (len < 256 && m_in.ensure(len + 1) && m_in.cur()[len] != '\n')
                ++len;
            if (!need(len + 1) || m_in.cur()[len] != '\n')
                return refuse("GLOBAL");
            line = std::string_view(reinterpret_cast<const char*>(m_in.cur()), size_t(len));
            name += (part ? "." : "") + std::string(line);
            m_in.advance(len + 1);
        }
        return refuse("GLOBAL " + name);
    }
    case STACK_GLOBAL:
    case REDUCE:
    case BUILD:
    case NEWOBJ:
    case NEWOBJ_EX:
    case INST:
    case OBJ:
    case PERSID:
    case BINPERSID:
    case EXT1:
    case EXT2:
    case EXT4:
        return refuse(opName(m_op));
    case NEXT_BUFFER:
    case READONLY_BUFFER:
        return fail(opName(m_op) + ": out-of-band buffers are not supported");
    case INT:
    case LONG:
    case FLOAT:
    case STRING:
    case UNICODE:
    case PUT:
    case GET:
        return fail(opName(m_op) + " is a protocol 0 opcode: memory snapshots are read in protocols 1 to 5");
    default:
        return fail("unknown opcode 0x" + std::string(1, "0123456789abcdef"[m_op >> 4])
            + std::string(1, "0123456789abcdef"[m_op & 15]) + " (not a pickle, or a corrupt one)");
    }
}

} // namespace detail

namespace {

Result<Snapshot> runGuarded(detail::SnapshotInput& in, const std::string& path, const ReadOptions& options)
{
    if (in.total() > options.maxBytes)
        return makeError(ErrorCode::InvalidArgument,
            "the snapshot is " + std::to_string(in.total()) + " bytes, more than the limit of "
                + std::to_string(options.maxBytes) + " (ReadOptions::maxBytes)",
            path);
    try {
        return detail::SnapshotVm(in, path, options).run();
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::InvalidArgument, "out of memory reading the snapshot", path);
    } catch (const std::length_error&) {
        return makeError(ErrorCode::InvalidArgument, "out of memory reading the snapshot", path);
    }
}

} // namespace

Result<Snapshot> readSnapshot(std::string_view bytes, const std::string& path, const ReadOptions& options)
{
    detail::SnapshotInput in(bytes);
    return runGuarded(in, path, options);
}

Result<Snapshot> readSnapshotFile(const std::string& path, const ReadOptions& options)
{
    auto file = InputFile::open(path); // refuses a FIFO, a device, a folder (engine/core/file_io.h)
    if (!file)
        return file.error();
    const uint64_t size = file->size();
    std::FILE* f = file->releaseToFile();
    if (!f)
        return makeError(ErrorCode::Io, "cannot open: " + std::string(std::strerror(errno)), path);
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(f, &std::fclose);
    detail::SnapshotInput in(f, size);
    return runGuarded(in, path, options);
}

} // namespace engine::snapshot
