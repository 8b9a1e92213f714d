// Who owns a snapshot's memory, from the evidence (snapshot_story.h; the rules: docs/snapshots.md,
// "Pools and owners").
#include "engine/snapshot/snapshot_story.h"

#include "engine/snapshot/story_frames.h"
#include "engine/snapshot/trace_walker.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace engine::snapshot {

using namespace story_detail;

namespace {

/// What is known of one pool from its allocations, for its name.
struct PoolFacts {
    size_t allocs = 0, cgtAllocs = 0;
    std::string cgtExample; ///< a cudagraph_trees.py frame seen
    std::map<std::string, int> userFrames; ///< innermost user frames
    std::vector<std::string> functions; ///< compiled functions, in order of appearance
    std::vector<std::string> captures; ///< captures' frames, in order
    std::string captureKind; ///< the first capture code seen on its stacks ("TorchAir aclgraph")
    std::string captureFrame; ///< its frame
    std::map<std::string, int> fxNodes;
    std::vector<uint32_t> owners;
    std::map<std::string, int> compileContexts, userMetadata;
};

/// Per private pool outside CUDA Graph Trees: the capture being filled.
struct CaptureState {
    uint32_t owner = SnapshotStory::kNone;
    std::string frame; ///< the outermost user frame naming it
    size_t begin = SIZE_MAX; ///< the capture_begin entry it started after
    size_t index = 0; ///< in PoolFacts::captures
    bool beginOnly = false; ///< only capture_begin's own allocations so far
};

std::string mostCommon(const std::map<std::string, int>& counts)
{
    std::string best;
    int n = 0;
    for (const auto& [s, c] : counts)
        if (c > n) {
            best = s;
            n = c;
        }
    return best;
}

std::string joinList(const std::vector<std::string>& items, size_t most = 6)
{
    std::string out;
    for (size_t k = 0; k < items.size() && k < most; ++k)
        out += (k ? ", " : "") + items[k];
    if (items.size() > most)
        out += " and " + std::to_string(items.size() - most) + " more";
    return out;
}

/// "part_a_allocator.py:84" of "part_a_allocator.py:84 <module>".
std::string fileLine(const std::string& frame)
{
    return frame.substr(0, frame.find(' '));
}

class Teller {
public:
    Teller(const Snapshot& snapshot, int device, const SnapshotHints* hints, const StoryProgress& progress)
        : m_snap(snapshot)
        , m_hints(hints)
        , m_progress(progress)
        , m_frames(snapshot)
    {
        m_story.device = device;
    }
    Result<SnapshotStory> run();

private:
    void onAlloc(size_t i, const TraceEntry& e, memory::PoolId pool);
    uint32_t cgtOwner(size_t i, const TraceEntry& e, const StackFacts& f, memory::PoolId pool);
    uint32_t captureOwner(size_t i, const TraceEntry& e, const StackFacts& f, memory::PoolId pool);
    /// The frame naming a capture's allocation: in the function that ran capture_begin (the `with
    /// torch.cuda.graph(...)` block), else the outermost user frame.
    std::string captureFrame(const TraceEntry& e, const StackFacts& f) const;
    uint32_t named(const std::string& name, const std::string& category, memory::PoolId pool, size_t i);
    uint32_t newOwner(const std::string& name, const std::string& category, memory::PoolId pool, size_t i);
    std::string uniqueName(const std::string& name);
    /// "compile 0/1", or "graph c62wrtc32trn" without hints; sets the compile id's text.
    std::string functionLabel(const std::string& module, std::string* compileId) const;
    /// "0/1" when a hint's dynamo span holds `timeUs`; "" otherwise.
    std::string compileAt(int64_t timeUs) const;
    void findWorkspaces(const TraceList& trace);
    void numberRecordings();
    void namePools(const detail::TraceWalker& walker);

    const Snapshot& m_snap;
    const SnapshotHints* m_hints;
    const StoryProgress& m_progress;
    FrameRules m_frames;
    SnapshotStory m_story;
    std::map<std::string, uint32_t> m_byName;
    std::set<std::string> m_names;
    std::map<memory::PoolId, PoolFacts> m_facts;
    std::map<memory::PoolId, CaptureState> m_captures;
    std::unordered_map<uint64_t, uint32_t> m_lastOwnerAt; ///< address -> owner of the last block made there
    std::set<size_t> m_workspaceAllocs; ///< alloc entries whose block clear_cublass_cache freed
    std::set<std::pair<std::string, uint64_t>> m_workspaceSites; ///< (generated-module site, size) of those
    std::string m_groupKey; ///< module + phase of the last alloc entry: a change starts a new group
    std::map<std::string, int> m_groupCount; ///< groups so far per module + phase
    struct Recording {
        std::string module, compileId;
        int64_t firstUs = 0, lastUs = 0;
    };
    std::map<uint32_t, Recording> m_recordings; ///< recording owners
    size_t m_captureBegins = 0; ///< alloc entries under torch/cuda/graphs.py capture_begin
    size_t m_firstBegin = SIZE_MAX, m_lastBegin = SIZE_MAX; ///< the first and the latest of them
    std::string m_beginCaller; ///< the user's frame that ran the latest capture_begin
};

std::string Teller::uniqueName(const std::string& name)
{
    std::string n = name;
    for (int k = 2; m_names.count(n); ++k)
        n = name + " #" + std::to_string(k);
    m_names.insert(n);
    return n;
}

uint32_t Teller::newOwner(const std::string& name, const std::string& category, memory::PoolId pool, size_t i)
{
    StoryOwner o;
    o.name = uniqueName(name);
    o.category = category;
    o.pool = pool;
    o.firstEntry = i;
    m_story.owners.push_back(std::move(o));
    const auto id = uint32_t(m_story.owners.size() - 1);
    m_facts[pool].owners.push_back(id);
    return id;
}

uint32_t Teller::named(const std::string& name, const std::string& category, memory::PoolId pool, size_t i)
{
    if (auto it = m_byName.find(name); it != m_byName.end())
        return it->second;
    const uint32_t id = newOwner(name, category, pool, i);
    m_byName[name] = id;
    return id;
}

std::string Teller::functionLabel(const std::string& module, std::string* compileId) const
{
    if (module.empty()) {
        *compileId = "unknown (no generated Inductor module on the stack)";
        return "compiled graph of unknown module";
    }
    if (m_hints) {
        if (auto it = m_hints->moduleCompileId.find(module); it != m_hints->moduleCompileId.end()) {
            *compileId = it->second;
            return "compile " + it->second;
        }
        *compileId = "unknown (" + module + " is not in the inductor_output_code records of " + m_hints->source + ")";
    } else {
        *compileId = "unknown (no TORCH_TRACE of this run)";
    }
    const std::string stem = module.substr(0, module.find('.'));
    return "graph " + stem.substr(0, 12);
}

std::string Teller::compileAt(int64_t timeUs) const
{
    if (!m_hints || timeUs <= 0)
        return {};
    for (const auto& c : m_hints->compiles)
        if (c.beginUs <= timeUs && timeUs <= c.endUs)
            return c.compileId;
    return {};
}

/// A block freed by cudagraph_trees.py clear_cublass_cache (cuBLAS' workspace, which CUDA Graph
/// Trees drops after warm-ups and recordings so it is not captured as graph memory): its alloc
/// entry, and every allocation of that size from the same generated-module line, is a library
/// workspace.
void Teller::findWorkspaces(const TraceList& trace)
{
    std::unordered_map<uint64_t, size_t> lastAlloc;
    for (size_t i = 0; i < trace.size(); ++i) {
        const TraceEntry& e = trace[i];
        if (e.action == TraceAction::Alloc) {
            lastAlloc[e.addr] = i;
            if (m_frames.of(e.stack).captureBegin) {
                ++m_captureBegins;
                m_firstBegin = std::min(m_firstBegin, i);
            }
        } else if (e.action == TraceAction::FreeCompleted || e.action == TraceAction::FreeRequested) {
            auto it = lastAlloc.find(e.addr);
            if (it == lastAlloc.end() || !m_frames.of(e.stack).freesCublasWorkspace)
                continue;
            m_workspaceAllocs.insert(it->second);
            const StackFacts& made = m_frames.of(trace[it->second].stack);
            if (!made.site.empty())
                m_workspaceSites.insert({ made.site, trace[it->second].size });
        }
    }
}

uint32_t Teller::cgtOwner(size_t i, const TraceEntry& e, const StackFacts& f, memory::PoolId pool)
{
    std::string compileId;
    const std::string fn = functionLabel(f.module, &compileId);
    const std::string key = f.module + "|" + phaseName(f.phase);
    const bool newGroup = key != m_groupKey;
    m_groupKey = key;
    PoolFacts& facts = m_facts[pool];
    if (std::find(facts.functions.begin(), facts.functions.end(), fn) == facts.functions.end())
        facts.functions.push_back(fn);
    const std::string via = f.cgtFrame.empty() ? std::string("cudagraph_trees.py") : f.cgtFrame;
    uint32_t id = SnapshotStory::kNone;
    std::string evidence;
    if (f.phase == Phase::Restore) {
        if (auto it = m_lastOwnerAt.find(e.addr); it != m_lastOwnerAt.end())
            return it->second; // the same tensor as before the checkpoint
        id = named("checkpoint restore of " + fn, "checkpoint restore", pool, i);
        evidence = "allocated by " + via
            + " (an allocator checkpoint puts back the blocks live at the checkpoint); no earlier block at this "
              "address in the trace, so whose tensor it is is unknown";
    } else if (m_workspaceAllocs.count(i) || m_workspaceSites.count({ f.site, e.size })) {
        id = named(fn + " cuBLAS workspace", "library workspace", pool, i);
        evidence = "allocated at " + f.site + " (a call into cuBLAS from the generated code); "
            + (m_workspaceAllocs.count(i) ? std::string("this block is freed by cudagraph_trees.py clear_cublass_cache")
                                          : "a block of this size from this line is freed by cudagraph_trees.py "
                                            "clear_cublass_cache")
            + ": cuBLAS' workspace, which CUDA Graph Trees clears so that no graph captures it";
    } else if (f.autotune) {
        id = named(fn + " autotuning", "autotuning", pool, i);
        evidence = "allocated under " + f.autotuneFrame
            + " (Triton benchmarking kernel configurations: L2-flush buffers and argument clones), inside " + via;
    } else if (f.phase == Phase::StaticInput) {
        id = named(fn + " static input copies", "static input copy", pool, i);
        evidence = "allocated by " + via
            + " (cudagraph_trees.py copies inputs that are not static into the pool before recording)";
    } else if (f.phase == Phase::Recording || f.phase == Phase::WarmUp) {
        const bool rec = f.phase == Phase::Recording;
        int& k = m_groupCount[key];
        if (newGroup || k == 0)
            ++k;
        const std::string name = fn + (rec ? " recording " : " warm-up ") + std::to_string(k);
        id = named(name, rec ? "graph tensor" : "warm-up", pool, i);
        if (rec) {
            auto [r, fresh] = m_recordings.try_emplace(id);
            if (fresh) {
                r->second.module = f.module;
                r->second.compileId = compileId;
                r->second.firstUs = e.timeUs;
            }
            r->second.lastUs = e.timeUs;
            evidence = "allocated through " + via + " (CUDAGraphNode recording a CUDA graph of " + f.module
                + "); recording " + std::to_string(k) + " of this function: the " + std::to_string(k)
                + (k == 1        ? "st"
                        : k == 2 ? "nd"
                        : k == 3 ? "rd"
                                 : "th")
                + " run of consecutive allocations through record_function"
                + (k > 1 ? "; an earlier recording of the same function exists, so this is a re-recording "
                           "(static input addresses changed) or a recording for another input size or tree "
                           "path; the snapshot does not say which (TORCH_LOGS=cudagraphs prints 'Re-recording')"
                         : "");
        } else {
            evidence = "allocated through " + via
                + " (CUDAWarmupNode: the function run eagerly in the pool before "
                  "it is recorded); warm-up "
                + std::to_string(k) + " of " + f.module;
        }
    } else {
        id = named(
            fn + " CUDA Graph Trees " + (f.cgtFrame.empty() ? std::string("other") : f.cgtFrame), "unknown", pool, i);
        evidence = "allocated through " + via + ", outside warm-up, recording and static input copies";
    }
    StoryOwner& o = m_story.owners[id];
    if (o.evidence.empty()) {
        o.evidence = evidence;
        if (m_hints && m_hints->moduleCompileId.count(f.module)) {
            auto from = m_hints->moduleSource.find(f.module);
            o.evidence += "; compile id " + compileId + " from the inductor_output_code record of " + f.module + " in "
                + (from != m_hints->moduleSource.end() ? from->second : m_hints->source);
        }
        o.module = f.module;
        o.compileId = compileId;
        o.userFrame = f.innerUser;
    }
    return id;
}

std::string Teller::captureFrame(const TraceEntry& e, const StackFacts& f) const
{
    if (f.captureBegin || m_beginCaller.empty())
        return f.captureBegin ? f.innerUser : f.outerUser;
    const std::string file = m_beginCaller.substr(0, m_beginCaller.find(':'));
    const std::string func = m_beginCaller.substr(m_beginCaller.find(' ') + 1);
    if (e.stack < m_snap.stacks.size())
        for (uint32_t k : m_snap.stacks[e.stack]) {
            const Frame& fr = m_snap.frames[k];
            if (fr.name == func && baseName(fr.filename) == file && isUserFrame(fr))
                return shortFrame(fr);
        }
    return f.outerUser;
}

uint32_t Teller::captureOwner(size_t i, const TraceEntry& e, const StackFacts& f, memory::PoolId pool)
{
    CaptureState& c = m_captures[pool];
    PoolFacts& facts = m_facts[pool];
    if (facts.captureKind.empty()) {
        facts.captureKind = f.captureKind;
        facts.captureFrame = f.captureFrame;
    }
    const std::string kind = !facts.captureKind.empty() ? facts.captureKind + " capture"
        : m_captureBegins                               ? "torch.cuda.graph capture"
                                                        : "graph capture";
    const std::string user = captureFrame(e, f);
    const std::string frame = user.empty() ? std::string("unknown frame") : user;
    // A capture ends where another capture_begin ran or the outermost user frame changes; the
    // allocations of capture_begin itself belong to the capture it begins.
    const bool fresh = c.owner == SnapshotStory::kNone || (m_lastBegin != c.begin && !c.beginOnly)
        || (!f.captureBegin && !c.beginOnly && c.frame != frame);
    if (fresh) {
        c.owner = newOwner(kind + " at " + fileLine(frame), "capture", pool, i);
        c.begin = m_lastBegin;
        c.beginOnly = f.captureBegin;
        c.index = facts.captures.size();
        facts.captures.push_back(fileLine(frame));
    } else if (c.beginOnly && !f.captureBegin) {
        StoryOwner& o = m_story.owners[c.owner];
        m_names.erase(o.name);
        o.name = uniqueName(kind + " at " + fileLine(frame));
        c.beginOnly = false;
        facts.captures[c.index] = fileLine(frame);
    }
    StoryOwner& o = m_story.owners[c.owner];
    if (fresh || (!f.captureBegin && o.userFrame != frame && c.frame != frame)) {
        c.frame = frame;
        o.userFrame = frame;
        o.evidence = "allocations in private pool " + pool.str() + " made from " + fileLine(frame)
            + " (their frame in the function that ran capture_begin, else their outermost user frame); consecutive "
              "allocations from one frame are one capture, and a new "
              "capture starts where torch/cuda/graphs.py capture_begin ran again"
            + (m_captureBegins ? std::string("; capture_begin frames are on this device's trace (first at entry ")
                        + std::to_string(m_firstBegin + 1) + ")"
                               : std::string("; no capture_begin frame on this device's trace, so the kind of "
                                             "capture is unknown"));
    }
    return c.owner;
}

void Teller::onAlloc(size_t i, const TraceEntry& e, memory::PoolId pool)
{
    const StackFacts& f = m_frames.of(e.stack);
    PoolFacts& facts = m_facts[pool];
    ++facts.allocs;
    if (!f.innerUser.empty())
        ++facts.userFrames[f.innerUser];
    if (!f.fxNode.empty())
        ++facts.fxNodes[f.fxNode];
    if (e.compileContext && m_snap.text(e.compileContext) != "N/A") // 2.11 writes "N/A": absent
        ++facts.compileContexts[m_snap.text(e.compileContext)];
    if (e.userMetadata)
        ++facts.userMetadata[m_snap.text(e.userMetadata)];
    if (f.captureBegin) {
        m_lastBegin = i;
        if (!f.innerUser.empty())
            m_beginCaller = f.innerUser;
    }
    uint32_t id;
    if (f.phase != Phase::None) {
        ++facts.cgtAllocs;
        if (facts.cgtExample.empty())
            facts.cgtExample = f.cgtFrame;
        id = cgtOwner(i, e, f, pool);
    } else {
        m_groupKey.clear();
        if (!pool.isDefault()) {
            id = captureOwner(i, e, f, pool);
        } else {
            const std::string where = f.innerUser.empty() ? describeStack(m_snap, e.stack) : f.innerUser;
            if (f.captureBegin) {
                id = named("torch.cuda.graph capture_begin at " + fileLine(f.outerUser), "capture", pool, i);
            } else if (f.autotune || f.compiling) {
                const std::string during = compileAt(e.timeUs);
                const std::string what = f.autotune ? "autotuning while compiling " : "compiling ";
                id = named(what + (during.empty() ? "at " + fileLine(where) : during),
                    f.autotune ? "autotuning" : "compilation", pool, i);
            } else {
                id = named(
                    where.empty() ? "eager (no stack recorded)" : "eager at " + fileLine(where), "eager", pool, i);
            }
            StoryOwner& o = m_story.owners[id];
            if (o.evidence.empty()) {
                o.userFrame = where;
                o.evidence = f.captureBegin
                    ? std::string("allocated by torch/cuda/graphs.py capture_begin in the default pool, before the "
                                  "capture's pool is in use")
                    : f.autotune || f.compiling
                    ? (f.autotune
                              ? "allocated under " + f.autotuneFrame
                                  + " (Inductor benchmarking kernel or padding choices while compiling), outside any "
                                    "graph"
                              : std::string("allocated while Dynamo/Inductor compiled (torch/_dynamo/convert_frame.py "
                                            "or compile_fx.py frames), outside any graph"))
                        + (compileAt(e.timeUs).empty() ? std::string("; which compile is unknown (a TORCH_TRACE's "
                                                                     "dynamo spans would tell)")
                                                       : "; its time falls in the dynamo span of " + compileAt(e.timeUs)
                                    + " in " + m_hints->source)
                    : "the default pool, no capture or CUDA Graph Trees frame; named after "
                        + (f.innerUser.empty() ? std::string("the first frame that is not torch's plumbing")
                                               : std::string("the first frame outside torch and installed packages"));
            }
        }
    }
    StoryOwner& o = m_story.owners[id];
    ++o.allocs;
    o.allocBytes += e.size;
    m_story.entryOwner[i] = id;
    m_lastOwnerAt[e.addr] = id;
}

/// With a TORCH_TRACE: each recording is matched to the CUDAGraphNode.record span of its compile
/// id that overlaps its allocations' times, and numbered as that span is among the compile's.
void Teller::numberRecordings()
{
    if (!m_hints)
        return;
    std::map<std::string, std::vector<const SnapshotHints::Recording*>> spans;
    for (const auto& r : m_hints->recordings)
        spans[r.compileId].push_back(&r);
    std::set<const SnapshotHints::Recording*> used;
    for (auto& [id, rec] : m_recordings) {
        StoryOwner& o = m_story.owners[id];
        auto it = spans.find(rec.compileId);
        if (it == spans.end()) {
            o.evidence += "; no CUDAGraphNode.record span of this compile id in " + m_hints->source;
            continue;
        }
        for (size_t k = 0; k < it->second.size(); ++k) {
            const auto* s = it->second[k];
            if (s->beginUs > rec.lastUs || s->endUs < rec.firstUs)
                continue;
            used.insert(s);
            m_names.erase(o.name);
            o.name = uniqueName("compile " + rec.compileId + " recording " + std::to_string(k + 1));
            o.evidence += "; its allocations fall in CUDAGraphNode.record span " + std::to_string(k + 1) + " of "
                + std::to_string(it->second.size()) + " of compile " + rec.compileId + " (" + std::to_string(s->beginUs)
                + "-" + std::to_string(s->endUs) + " us) in " + m_hints->source;
            break;
        }
    }
    for (const auto& r : m_hints->recordings)
        if (!used.count(&r) && m_story.notes.size() < 8)
            m_story.notes.push_back("CUDAGraphNode.record of compile " + r.compileId + " at "
                + std::to_string(r.beginUs) + " us matches no recording's allocations in the trace");
}

void Teller::namePools(const detail::TraceWalker& walker)
{
    // Pools the trace never allocated in: what their final blocks' stacks say.
    for (const Segment& s : m_snap.segments) {
        if (s.device != m_story.device)
            continue;
        PoolFacts& facts = m_facts[s.pool];
        const bool fromBlocks = facts.allocs == 0;
        for (const Block& b : s.blocks) {
            const StackFacts& f = m_frames.of(b.stack);
            if (facts.captureKind.empty()) {
                facts.captureKind = f.captureKind;
                facts.captureFrame = f.captureFrame;
            }
            if (!f.fxNode.empty())
                ++facts.fxNodes[f.fxNode];
            if (!fromBlocks)
                continue;
            if (!f.innerUser.empty())
                ++facts.userFrames[f.innerUser];
            if (f.phase != Phase::None) {
                ++facts.cgtAllocs;
                facts.cgtExample = f.cgtFrame;
            }
        }
    }
    for (const auto& [addr, seg] : walker.segments())
        m_facts[seg.pool];
    for (auto& [id, facts] : m_facts) {
        StoryPool p;
        p.pool = id;
        p.owners = facts.owners;
        p.told = facts.allocs || facts.cgtAllocs || !facts.captureKind.empty() || !facts.userFrames.empty();
        const std::string user = mostCommon(facts.userFrames);
        std::vector<std::string> why;
        if (id.isDefault()) {
            p.kind = PoolKind::Default;
            p.name = "default pool";
            why.push_back("pool id (0, 0): the caching allocator's default pool, allocations outside any capture");
        } else if (facts.cgtAllocs) {
            p.kind = PoolKind::CudaGraphTrees;
            p.name = "CUDA Graph Trees pool" + (user.empty() ? std::string() : " of " + fileLine(user));
            if (!facts.functions.empty())
                p.name += ": " + joinList(facts.functions);
            why.push_back(std::to_string(facts.cgtAllocs) + " of its allocations run through torch/_inductor/"
                + facts.cgtExample + " (CUDAGraphTreeManager keeps one pool per device, from graph_pool_handle())");
            if (!user.empty())
                why.push_back("the user's frame most of them come from: " + user);
        } else if (id.first == 0) {
            p.kind = PoolKind::SharedHandle;
            p.name = "graph_pool_handle() pool";
            const std::string kind = !facts.captureKind.empty() ? facts.captureKind + " "
                : m_captureBegins                               ? std::string("torch.cuda.graph ")
                                                                : std::string();
            if (!facts.captures.empty())
                p.name += (facts.captures.size() > 1 ? " shared by " : " of ") + std::to_string(facts.captures.size())
                    + " " + kind + (facts.captures.size() > 1 ? "captures (" : "capture (") + joinList(facts.captures)
                    + ")";
            why.push_back("pool id " + id.str()
                + ": (0, N) ids are made by torch.cuda.graph_pool_handle() or torch.cuda.MemPool() (user-made "
                  "pools, c10/cuda/CUDACachingAllocator MempoolId), shared by the captures given it");
        } else {
            p.kind = id.second == 0 ? PoolKind::CapturePrivate : PoolKind::Unknown;
            p.name = id.second == 0 ? "own pool of " : "private pool of ";
            p.name += facts.captures.empty()
                ? std::string("a capture")
                : (facts.captures.size() > 1
                        ? std::to_string(facts.captures.size()) + " captures (" + joinList(facts.captures) + ")"
                        : "the capture at " + facts.captures[0]);
            const std::string kind = !facts.captureKind.empty() ? facts.captureKind
                : m_captureBegins                               ? std::string("torch.cuda.graph")
                                                                : std::string();
            if (!kind.empty() && !facts.captures.empty())
                p.name = p.name.replace(p.name.find("capture"), 7, kind + " capture");
            why.push_back("pool id " + id.str()
                + (id.second == 0 ? ": (N, 0) ids are the private pool a capture makes when given no pool "
                                    "(CUDAGraph::capture_begin)"
                                  : ": a private pool id of no documented form"));
        }
        if (facts.captures.size() && p.kind != PoolKind::Default)
            why.push_back("captures named after their frame in the function that ran capture_begin (else their "
                          "outermost user frame): "
                + joinList(facts.captures));
        if (!facts.allocs && p.kind != PoolKind::Default)
            why.push_back("no allocation of the trace is in it; named from its final blocks' stacks");
        if (!facts.compileContexts.empty())
            why.push_back("compile_context of its entries: " + mostCommon(facts.compileContexts));
        if (!facts.userMetadata.empty())
            why.push_back("user_metadata of its entries: " + mostCommon(facts.userMetadata));
        if (!facts.captureKind.empty() && !id.isDefault())
            why.push_back("capture code on its stacks: " + facts.captureKind + " (" + facts.captureFrame + ")");
        if (!facts.fxNodes.empty()) {
            std::vector<std::string> nodes;
            for (const auto& [n, c] : facts.fxNodes)
                nodes.push_back(n);
            why.push_back("FX nodes in its frames: " + joinList(nodes, 4));
        }
        for (size_t k = 0; k < why.size(); ++k)
            p.evidence += (k ? "; " : "") + why[k];
        m_story.pools.push_back(std::move(p));
    }
}

Result<SnapshotStory> Teller::run()
{
    const int device = m_story.device;
    if (auto known = detail::checkDevice(m_snap, device); !known)
        return known.error();
    static const TraceList kNone;
    const TraceList& trace = size_t(device) < m_snap.deviceTraces.size() ? m_snap.deviceTraces[size_t(device)] : kNone;
    m_story.entryOwner.assign(trace.size(), SnapshotStory::kNone);
    findWorkspaces(trace);
    detail::TraceWalker walker(m_snap, device);
    std::map<memory::PoolId, std::pair<uint64_t, size_t>> peaks; // pool -> (allocated, entry)
    const auto observe = [&](size_t entry) {
        uint64_t all = 0;
        for (const auto& [pool, t] : walker.totals()) {
            auto [it, fresh] = peaks.try_emplace(pool, t.allocated, entry);
            if (!fresh && t.allocated > it->second.first)
                it->second = { t.allocated, entry };
            all += t.allocated;
        }
        if (all > m_story.peakAllocated || (entry == SnapshotStory::kBeforeTrace)) {
            m_story.peakAllocated = all;
            m_story.peakEntry = entry;
        }
    };
    const bool walked = walker.run([&] { observe(SnapshotStory::kBeforeTrace); },
        [&](size_t i) {
            const TraceEntry& e = trace[i];
            if (e.action == TraceAction::Alloc) {
                memory::PoolId pool;
                if (auto it = walker.live().find(e.addr); it != walker.live().end())
                    pool = it->second.pool;
                onAlloc(i, e, pool);
            }
            observe(i);
        },
        [&](uint64_t done) { return !m_progress || m_progress(done, 2 * uint64_t(trace.size())); });
    if (!walked)
        return Error { ErrorCode::Cancelled, "cancelled", m_snap.path };
    numberRecordings();
    namePools(walker);
    for (StoryPool& p : m_story.pools) {
        // The final segments are the truth (summarizePools starts its peaks from them).
        uint64_t final = 0;
        for (const Segment& s : m_snap.segments)
            if (s.device == device && s.pool == p.pool)
                final += s.allocatedSize;
        auto it = peaks.find(p.pool);
        p.peakAllocated = final;
        p.peakEntry = trace.empty() ? SnapshotStory::kBeforeTrace : trace.size() - 1;
        if (it != peaks.end() && it->second.first > final) {
            p.peakAllocated = it->second.first;
            p.peakEntry = it->second.second;
        }
    }
    return std::move(m_story);
}

} // namespace

const std::vector<std::string>& ownerCategoryOrder()
{
    static const std::vector<std::string> order { "graph tensor", "warm-up", "static input copy", "capture",
        "autotuning", "library workspace", "checkpoint restore", "compilation", "eager", "unknown" };
    return order;
}

const char* poolKindName(PoolKind k)
{
    switch (k) {
    case PoolKind::Default:
        return "default";
    case PoolKind::SharedHandle:
        return "graph_pool_handle";
    case PoolKind::CapturePrivate:
        return "capture_private";
    case PoolKind::CudaGraphTrees:
        return "cuda_graph_trees";
    case PoolKind::Unknown:
        break;
    }
    return "unknown";
}

const StoryPool* SnapshotStory::pool(memory::PoolId id) const
{
    for (const StoryPool& p : pools)
        if (p.pool == id)
            return &p;
    return nullptr;
}

Result<SnapshotStory> tellStory(
    const Snapshot& snapshot, int device, const SnapshotHints* hints, const StoryProgress& progress)
{
    return Teller(snapshot, device, hints, progress).run();
}

} // namespace engine::snapshot
