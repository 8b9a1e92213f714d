// Dicts into records: what the streaming machine (snapshot_vm.cpp) does with a container when
// something receives it, and the top-level dict at STOP.
#include "engine/core/py_value.h"
#include "engine/snapshot/snapshot_vm.h"

#include <algorithm>
#include <cstring>

namespace engine::snapshot::detail {

namespace {

constexpr uint64_t bit(uint32_t key)
{
    return uint64_t(1) << key;
}

std::string keyName(uint32_t key)
{
    return knownString(key);
}

/// Calls fn(key, value) for each entry of a dict whose key is a KnownStr, until fn returns false.
template <typename Fn> bool forEachKnown(const std::vector<Val>& items, Fn fn)
{
    for (size_t k = 0; k + 1 < items.size(); k += 2)
        if (items[k].kind == VK::Str && items[k].ref < K_Count && !fn(items[k].ref, items[k + 1]))
            return false;
    return true;
}

} // namespace

void SnapshotVm::warnOnce(const std::string& what)
{
    if (++m_warned[what] == 1)
        m_snap.warnings.push_back("offset " + std::to_string(m_opOffset) + ": " + what);
}

uint32_t SnapshotVm::recordKind(const Container& dict) const
{
    uint64_t keys = 0;
    for (size_t k = 0; k + 1 < dict.items.size(); k += 2)
        if (dict.items[k].kind == VK::Str && dict.items[k].ref < K_Count)
            keys |= bit(dict.items[k].ref);
    if (keys & bit(K_action))
        return K_action;
    if (keys & (bit(K_blocks) | bit(K_total_size)))
        return K_blocks;
    if (keys & bit(K_state))
        return K_state;
    if (keys & bit(K_filename))
        return K_filename;
    return K_Count;
}

Val SnapshotVm::resolved(const Val& v)
{
    const Container* c = container(v);
    return c && c->converted ? c->as : v;
}

void SnapshotVm::convert(uint32_t slot, const Val& as)
{
    memoReplace(slot, as);
    Container& c = m_slots[slot];
    c.converted = true;
    c.closed = true;
    c.as = as;
    c.items = {};
    m_converted.push_back(slot);
    if (m_converted.size() >= m_sweepAt)
        sweepConverted();
}

// A converted container is needed only while a copy of it is still on the stack (the memo already
// holds its conversion): every so often, the ones no stack entry names are freed. Without this a
// file whose frames pickle did not share (each frame its own dict) kept a container per frame,
// 80 bytes per frame of the file. The sweep walks the stack once per as many conversions as the
// stack is deep (at least 4096), so its cost per conversion stays constant.
void SnapshotVm::sweepConverted()
{
    std::vector<uint32_t> onStack;
    for (const Val& v : m_stack)
        if (v.kind == VK::List || v.kind == VK::Tuple || v.kind == VK::Dict || v.kind == VK::Set)
            onStack.push_back(v.ref);
    std::sort(onStack.begin(), onStack.end());
    std::vector<uint32_t> kept;
    for (uint32_t slot : m_converted) {
        Container& c = m_slots[slot];
        if (!c.live || !c.converted)
            continue;
        if (std::binary_search(onStack.begin(), onStack.end(), slot))
            kept.push_back(slot);
        else
            release(slot, c.as);
    }
    m_converted.swap(kept);
    m_sweepAt = std::max<size_t>(4096, 2 * (m_converted.size() + m_stack.size()));
}

bool SnapshotVm::receive(Val& v, Container* list)
{
    Container* c = container(v);
    if (!c || c->closed) {
        if (c && c->converted)
            v = c->as;
        return !m_error;
    }
    const uint32_t slot = v.ref;
    if (c->kind == VK::Dict) {
        const uint32_t kind = recordKind(*c);
        if (kind == K_filename) {
            if (!toFrame(*c, v))
                return false;
            convert(slot, v);
            return true;
        }
        if (list && kind != K_Count) {
            if (!list->records)
                list->records = std::make_unique<TypedRecords>();
            TypedRecords& r = *list->records;
            const uint64_t index = r.count() + list->items.size(); // where the list holds it
            if (kind == K_action) {
                TraceEntry e;
                if (!toTrace(*c, e))
                    return false;
                r.firstTrace = std::min(r.firstTrace, index);
                r.traces.push_back(e);
            } else if (kind == K_state) {
                Block b;
                bool hasAddress = false;
                if (!toBlock(*c, b, hasAddress))
                    return false;
                r.firstBlock = std::min(r.firstBlock, index);
                r.blocks.push_back(b);
                r.blockHasAddress.push_back(hasAddress);
            } else {
                Segment s;
                if (!toSegment(*c, s))
                    return false;
                r.firstSegment = std::min(r.firstSegment, index);
                r.segments.push_back(std::move(s));
            }
            v = Val { VK::Taken, 0, 0 };
            release(slot, v);
            return true;
        }
    } else if (c->kind == VK::List && !c->items.empty() && !c->records) {
        bool frames = true;
        for (Val& item : c->items) {
            item = resolved(item);
            frames = frames && item.kind == VK::Frame;
        }
        if (frames) {
            if (!toStack(*c, v))
                return false;
            convert(slot, v);
            return true;
        }
    }
    c->closed = true;
    return true;
}

bool SnapshotVm::toFrame(Container& dict, Val& out)
{
    Frame f;
    const char* what = "frame";
    const bool ok = forEachKnown(dict.items, [&](uint32_t key, const Val& v) {
        switch (key) {
        case K_filename:
            return str(v, f.filename, key, what);
        case K_line:
            return i64(v, f.line, key, what);
        case K_name:
            return str(v, f.name, key, what);
        case K_fx_node_op:
            return str(v, f.fxNodeOp, key, what);
        case K_fx_node_name:
            return str(v, f.fxNodeName, key, what);
        case K_fx_original_trace:
            return str(v, f.fxOriginalTrace, key, what);
        default:
            return true;
        }
    });
    if (!ok)
        return false;
    // Keyed by the texts' string ids (interned by content), not by a copy of the texts.
    FrameKey key;
    key.line = f.line;
    const std::string* texts[5] = { &f.filename, &f.name, &f.fxNodeOp, &f.fxNodeName, &f.fxOriginalTrace };
    for (int k = 0; k < 5; ++k)
        if (!intern(*texts[k], key.texts[k]))
            return false;
    auto [it, inserted] = m_frameIds.emplace(key, uint32_t(m_snap.frames.size()));
    if (inserted)
        m_snap.frames.push_back(std::move(f));
    out = Val { VK::Frame, it->second, 0 };
    return true;
}

bool SnapshotVm::toStack(Container& list, Val& out)
{
    std::string id(list.items.size() * 4, '\0');
    std::vector<uint32_t> frames(list.items.size());
    for (size_t k = 0; k < list.items.size(); ++k) {
        frames[k] = list.items[k].ref;
        std::memcpy(&id[k * 4], &frames[k], 4);
    }
    auto [it, inserted] = m_stackIds.emplace(std::move(id), StackId(m_snap.stacks.size()));
    if (inserted)
        m_snap.stacks.push_back(std::move(frames));
    out = Val { VK::Stack, it->second, 0 };
    return true;
}

bool SnapshotVm::stackOf(const Val& given, StackId& stack, const char* record)
{
    stack = kNoStack;
    const Val v = resolved(given);
    if (v.kind == VK::Stack) {
        stack = v.ref;
        return true;
    }
    const Container* c = container(v);
    if (m_error)
        return false;
    if (v.kind != VK::None && !(c && c->items.empty()))
        warnOnce(std::string("a ") + record + "'s 'frames' is not a list of frames; ignored");
    return true;
}

bool SnapshotVm::u64(const Val& v, uint64_t& out, uint32_t key, const char* record)
{
    switch (v.kind) {
    case VK::None:
        out = 0;
        return true;
    case VK::Bool:
    case VK::UInt:
        out = v.bits;
        return true;
    case VK::Int:
        if (int64_t(v.bits) < 0)
            return fail(std::string("a ") + record + "'s '" + keyName(key) + "' is negative ("
                + std::to_string(int64_t(v.bits)) + ")");
        out = v.bits;
        return true;
    case VK::BigInt:
        return fail(std::string("a ") + record + "'s '" + keyName(key) + "' is an integer that does not fit 64 bits");
    default:
        return fail(std::string("a ") + record + "'s '" + keyName(key) + "' must be an int");
    }
}

bool SnapshotVm::i64(const Val& v, int64_t& out, uint32_t key, const char* record)
{
    if (v.kind == VK::Int || v.kind == VK::UInt || v.kind == VK::Bool || v.kind == VK::None) {
        out = v.kind == VK::None ? 0 : int64_t(v.bits); // a stream handle of 2^63 or more keeps its bits
        return true;
    }
    if (v.kind == VK::BigInt)
        return fail(std::string("a ") + record + "'s '" + keyName(key) + "' is an integer that does not fit 64 bits");
    return fail(std::string("a ") + record + "'s '" + keyName(key) + "' must be an int");
}

bool SnapshotVm::str(const Val& v, std::string& out, uint32_t, const char*)
{
    if (v.kind == VK::Str)
        out = m_strings[v.ref];
    else if (v.kind == VK::None)
        out.clear();
    else
        out = render(v, 0);
    return !m_error;
}

bool SnapshotVm::pool(const Val& v, memory::PoolId& out, uint32_t key, const char* record)
{
    if (v.kind == VK::Pair) {
        out = m_pairs[v.ref];
        return true;
    }
    if (v.kind == VK::None) {
        out = memory::PoolId {};
        return true;
    }
    return fail(std::string("a ") + record + "'s '" + keyName(key) + "' must be a pair of non-negative ints");
}

bool SnapshotVm::toBlock(Container& dict, Block& b, bool& hasAddress)
{
    const char* what = "block";
    hasAddress = false;
    const bool ok = forEachKnown(dict.items, [&](uint32_t key, const Val& v) {
        switch (key) {
        case K_address:
            hasAddress = true;
            return u64(v, b.address, key, what);
        case K_size:
            return u64(v, b.size, key, what);
        case K_requested_size:
            return u64(v, b.requestedSize, key, what);
        case K_frames:
            return stackOf(v, b.stack, what);
        case K_state:
            if (v.kind == VK::Str && v.ref == K_active_allocated)
                b.state = BlockState::ActiveAllocated;
            else if (v.kind == VK::Str && (v.ref == K_active_pending_free || v.ref == K_active_awaiting_free))
                b.state = BlockState::ActivePendingFree;
            else if (v.kind == VK::Str && v.ref == K_inactive)
                b.state = BlockState::Inactive;
            else
                warnOnce("a block's state " + render(v, 0) + " is not known; read as inactive");
            break;
        case K_history: { // legacy: [{addr, real_size, frames}], the last the latest allocation
            const Container* h = container(v);
            if (!h || h->items.empty())
                break;
            const Container* last = container(h->items.back());
            if (!last || last->kind != VK::Dict)
                break;
            return forEachKnown(last->items, [&](uint32_t hk, const Val& hv) {
                if (hk == K_real_size)
                    return u64(hv, b.requestedSize, hk, what);
                return hk == K_frames ? stackOf(hv, b.stack, what) : true;
            });
        }
        default:
            break;
        }
        return !m_error;
    });
    return ok && !m_error;
}

bool SnapshotVm::toSegment(Container& dict, Segment& s)
{
    const char* what = "segment";
    uint64_t seen = 0;
    int64_t device = 0;
    std::string type;
    const bool ok = forEachKnown(dict.items, [&](uint32_t key, const Val& v) {
        seen |= bit(key);
        switch (key) {
        case K_device:
            if (!i64(v, device, key, what))
                return false;
            if (device < 0 || device > 65535)
                return fail("a segment's 'device' " + std::to_string(device) + " is out of range");
            s.device = int(device);
            return true;
        case K_address:
            return u64(v, s.address, key, what);
        case K_total_size:
            return u64(v, s.totalSize, key, what);
        case K_allocated_size:
            return u64(v, s.allocatedSize, key, what);
        case K_active_size:
            return u64(v, s.activeSize, key, what);
        case K_requested_size:
            return u64(v, s.requestedSize, key, what);
        case K_stream:
            return i64(v, s.stream, key, what);
        case K_segment_type:
            s.small = str(v, type, key, what) && type == "small";
            break;
        case K_segment_pool_id:
            return pool(v, s.pool, key, what);
        case K_is_expandable:
            s.expandable = (v.kind == VK::Bool || v.kind == VK::Int) && v.bits != 0;
            break;
        case K_frames:
            return stackOf(v, s.stack, what);
        case K_blocks: {
            if (resolved(v).kind == VK::None)
                break;
            Container* list = container(v);
            if (m_error)
                return false;
            if (resolved(v).kind != VK::List || !list)
                return fail("a segment's 'blocks' is " + kindName(v) + ", not a list of blocks");
            if (!checkRecordList(*list, K_state, "a segment's 'blocks'"))
                return false;
            if (list->records) {
                s.blocks = std::move(list->records->blocks);
                std::vector<bool> hasAddress = std::move(list->records->blockHasAddress);
                uint64_t next = s.address;
                for (size_t j = 0; j < s.blocks.size(); ++j) { // legacy blocks tile the segment
                    if (!hasAddress[j])
                        s.blocks[j].address = next;
                    next = s.blocks[j].address + s.blocks[j].size;
                }
            }
            release(v.ref, Val { VK::Taken, 0, 0 });
            break;
        }
        default:
            break;
        }
        return !m_error;
    });
    if (!ok || m_error)
        return false;
    if (!(seen & bit(K_allocated_size)) || !(seen & bit(K_active_size)) || !(seen & bit(K_requested_size))) {
        uint64_t allocated = 0, active = 0, requested = 0; // old files: the sums the writer makes
        for (const Block& b : s.blocks) {
            allocated += b.state == BlockState::ActiveAllocated ? b.size : 0;
            active += b.state != BlockState::Inactive ? b.size : 0;
            requested += b.state != BlockState::Inactive ? b.requestedSize : 0;
        }
        if (!(seen & bit(K_allocated_size)))
            s.allocatedSize = allocated;
        if (!(seen & bit(K_active_size)))
            s.activeSize = active;
        if (!(seen & bit(K_requested_size)))
            s.requestedSize = requested;
    }
    return true;
}

bool SnapshotVm::toTrace(Container& dict, TraceEntry& e)
{
    const char* what = "trace entry";
    const bool ok = forEachKnown(dict.items, [&](uint32_t key, const Val& v) {
        switch (key) {
        case K_action:
            if (v.kind == VK::Str && v.ref >= K_alloc && v.ref <= K_annotate)
                e.action = TraceAction(v.ref - K_alloc);
            else
                warnOnce("a trace entry's action " + render(v, 0) + " is not known");
            break;
        case K_addr:
            return u64(v, e.addr, key, what);
        case K_size:
            return u64(v, e.size, key, what);
        case K_stream:
            return i64(v, e.stream, key, what);
        case K_time_us:
            return i64(v, e.timeUs, key, what);
        case K_frames:
            return stackOf(v, e.stack, what);
        case K_pool_id:
            e.hasPool = v.kind == VK::Pair;
            return pool(v, e.pool, key, what);
        case K_device_free:
            return u64(v, e.deviceFree, key, what);
        case K_user_metadata:
            return text(v, e.userMetadata);
        case K_compile_context:
            return text(v, e.compileContext);
        default:
            break;
        }
        return !m_error;
    });
    return ok && !m_error;
}

std::string SnapshotVm::kindName(const Val& given)
{
    const Val v = resolved(given);
    switch (v.kind) {
    case VK::None:
        return "None";
    case VK::Bool:
        return "a bool";
    case VK::Int:
    case VK::UInt:
    case VK::BigInt:
        return "an int";
    case VK::Float:
        return "a float";
    case VK::Str:
        return "a str";
    case VK::Bytes:
        return "bytes";
    case VK::Pair:
    case VK::Tuple:
        return "a tuple";
    case VK::Frame:
        return "a frame (a dict with 'filename')";
    case VK::Stack:
        return "a list of frames";
    case VK::Taken:
        return "a record already used";
    case VK::List:
        return "a list";
    case VK::Set:
        return "a set";
    case VK::Dict:
        return "a dict without the keys of a segment, block or trace entry";
    }
    return "a value";
}

bool SnapshotVm::checkRecordList(const Container& list, uint32_t want, const std::string& place)
{
    const char* what = want == K_blocks ? "a segment is a dict with 'total_size' and 'blocks'"
        : want == K_state               ? "a block is a dict with 'size' and 'state'"
                                        : "a trace entry is a dict with 'action'";
    uint64_t bad = list.firstOther;
    std::string is = bad == UINT64_MAX ? std::string() : kindName(list.items.front());
    if (list.records) {
        const TypedRecords& r = *list.records;
        const auto consider = [&](uint64_t index, uint32_t kind, const char* name) {
            if (kind != want && index < bad) {
                bad = index;
                is = name;
            }
        };
        consider(r.firstTrace, K_action, "a trace entry (a dict with 'action')");
        consider(r.firstBlock, K_state, "a block (a dict with 'state')");
        consider(r.firstSegment, K_blocks, "a segment (a dict with 'blocks' or 'total_size')");
    }
    if (bad == UINT64_MAX)
        return true;
    const std::string at = place + "[" + std::to_string(bad) + "]";
    const std::string message = std::string(what) + ", not " + is;
    return place.rfind("$", 0) == 0 ? failAt(at, message) : fail(at + ": " + message);
}

bool SnapshotVm::takeTraces(Container& list, TraceList& out, const std::string& place)
{
    if (!checkRecordList(list, K_action, place))
        return false;
    if (list.records)
        out = std::move(list.records->traces); // the chunks move: never two copies of the trace
    return true;
}

bool SnapshotVm::text(const Val& v, TextId& out)
{
    if (v.kind == VK::None) {
        out = 0;
        return true;
    }
    if (v.kind == VK::Str) {
        if (m_strings[v.ref].empty()) {
            out = 0;
            return true;
        }
        auto [it, inserted] = m_textIds.emplace(v.ref, TextId(m_snap.texts.size()));
        if (inserted)
            m_snap.texts.push_back(m_strings[v.ref]);
        out = it->second;
        return true;
    }
    out = TextId(m_snap.texts.size());
    m_snap.texts.push_back(render(v, 0));
    return !m_error;
}

bool SnapshotVm::finishRoot(const Val& root)
{
    Container* c = container(root);
    if (m_error)
        return false;
    if (c && (c->kind == VK::List)) { // the old form: memory_snapshot()'s segment list
        m_snap.bareList = true;
        if (!checkRecordList(*c, K_blocks, "$"))
            return false;
        if (c->records)
            m_snap.segments = std::move(c->records->segments);
        return true;
    }
    if (!c || c->kind != VK::Dict)
        return fail("the pickle holds " + render(root, 0)
            + ", not a memory snapshot (a dict with 'segments', or a list of segments)");
    bool sawSegments = false;
    for (size_t k = 0; k + 1 < c->items.size(); k += 2) {
        const Val& key = c->items[k];
        const Val& v = c->items[k + 1];
        if (key.kind != VK::Str)
            continue;
        Container* item = container(v);
        if (m_error)
            return false;
        const VK kind = resolved(v).kind;
        if (key.ref == K_segments) {
            if (kind != VK::List || !item)
                return failAt("$.segments", "'segments' is " + kindName(v) + ", not a list of segments");
            sawSegments = true;
            if (!checkRecordList(*item, K_blocks, "$.segments"))
                return false;
            if (item->records)
                m_snap.segments = std::move(item->records->segments);
        } else if (key.ref == K_device_traces && kind != VK::None) {
            if (kind != VK::List || !item)
                return failAt("$.device_traces",
                    "'device_traces' is " + kindName(v) + ", not a list of per-device lists of trace entries");
            if (item->records) {
                const TypedRecords& r = *item->records;
                const uint64_t first = std::min({ r.firstTrace, r.firstBlock, r.firstSegment });
                return failAt("$.device_traces[" + std::to_string(first) + "]",
                    "a device's trace is a list of trace entries, not a record");
            }
            m_snap.deviceTraces.clear();
            for (size_t d = 0; d < item->items.size(); ++d) {
                const std::string place = "$.device_traces[" + std::to_string(d) + "]";
                m_snap.deviceTraces.emplace_back();
                Container* trace = container(item->items[d]);
                if (m_error)
                    return false;
                if (resolved(item->items[d]).kind != VK::List || !trace)
                    return failAt(
                        place, "a device's trace is a list of trace entries, not " + kindName(item->items[d]));
                if (!takeTraces(*trace, m_snap.deviceTraces.back(), place))
                    return false;
            }
        } else if (key.ref == K_allocator_settings && kind != VK::None) {
            if (kind != VK::Dict || !item) {
                warnOnce("'allocator_settings' is " + kindName(v) + ", not a dict; not read");
                continue;
            }
            for (size_t j = 0; j + 1 < item->items.size(); j += 2)
                m_snap.allocatorSettings.emplace_back(render(item->items[j], 0), render(item->items[j + 1], 0));
        }
    }
    if (!sawSegments)
        return fail("not a memory snapshot: the top-level dict has no 'segments' list");
    return true;
}

/// Python-like text of a value, for allocator settings and messages: strings bare at the top,
/// quoted inside containers; at most 4 levels and 64 items a container.
std::string SnapshotVm::render(const Val& v, int depth) const
{
    switch (v.kind) {
    case VK::None:
        return "None";
    case VK::Bool:
        return v.bits ? "True" : "False";
    case VK::Int:
        return std::to_string(int64_t(v.bits));
    case VK::UInt:
        return std::to_string(v.bits);
    case VK::BigInt:
        return "<an int wider than 64 bits>";
    case VK::Float: {
        double d;
        std::memcpy(&d, &v.bits, sizeof d);
        return pyFloatRepr(d);
    }
    case VK::Str:
        return depth == 0 ? m_strings[v.ref] : pyStrRepr(m_strings[v.ref]);
    case VK::Bytes:
        return "b'...'";
    case VK::Pair:
        return m_pairs[v.ref].str();
    case VK::Frame:
        return "<frame>";
    case VK::Stack:
        return "<frames>";
    case VK::Taken:
        return "<record>";
    default:
        break;
    }
    const Container& c = m_slots[v.ref];
    if (!c.live || c.gen != v.bits || depth >= 4)
        return "...";
    if (c.converted)
        return render(c.as, depth);
    const bool dict = c.kind == VK::Dict;
    std::string out = dict ? "{" : c.kind == VK::Tuple ? "(" : "[";
    for (size_t k = 0; k < c.items.size() && k < (dict ? 128 : 64); ++k) {
        if (k)
            out += dict && k % 2 ? ": " : ", ";
        out += render(c.items[k], depth + 1);
    }
    out += dict ? "}" : c.kind == VK::Tuple ? ")" : "]";
    return out;
}

} // namespace engine::snapshot::detail
