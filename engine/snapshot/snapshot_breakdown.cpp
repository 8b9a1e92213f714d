// Why the memory is what it is at one step: the live blocks by owner, category and allocation
// site (snapshot_story.h breakdownAt).
#include "engine/snapshot/snapshot_story.h"
#include "engine/snapshot/story_frames.h"
#include "engine/snapshot/trace_walker.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace engine::snapshot {

namespace {

std::vector<Share> sorted(std::map<std::string, Share>& parts)
{
    std::vector<Share> out;
    out.reserve(parts.size());
    for (auto& [name, s] : parts)
        out.push_back(std::move(s));
    std::stable_sort(out.begin(), out.end(), [](const Share& a, const Share& b) { return a.bytes > b.bytes; });
    return out;
}

/// "outermost;...;innermost", each frame "file:line name" with the file's folder dropped.
std::string folded(const Snapshot& snap, StackId stack)
{
    if (stack >= snap.stacks.size() || snap.stacks[stack].empty())
        return "(no stack recorded)";
    std::string out;
    const auto& frames = snap.stacks[stack];
    for (auto it = frames.rbegin(); it != frames.rend(); ++it)
        out += (out.empty() ? "" : ";") + story_detail::shortFrame(snap.frames[*it]);
    return out;
}

} // namespace

std::string stackText(const Snapshot& snapshot, StackId stack)
{
    if (stack >= snapshot.stacks.size())
        return {};
    std::string out;
    for (uint32_t f : snapshot.stacks[stack]) {
        const Frame& fr = snapshot.frames[f];
        out += fr.filename + ":" + std::to_string(fr.line) + " " + fr.name + "\n";
    }
    return out;
}

Result<Breakdown> breakdownAt(const Snapshot& snapshot, const SnapshotStory& story, size_t entry,
    const memory::PoolId* pool, size_t topSites, const StoryProgress& progress)
{
    const int device = story.device;
    if (auto known = detail::checkDevice(snapshot, device); !known)
        return known.error();
    static const TraceList kNone;
    const TraceList& trace
        = size_t(device) < snapshot.deviceTraces.size() ? snapshot.deviceTraces[size_t(device)] : kNone;
    if (entry != SnapshotStory::kBeforeTrace && entry >= trace.size())
        return makeError(ErrorCode::InvalidArgument,
            "trace entry " + std::to_string(entry + 1) + " is beyond the device's " + std::to_string(trace.size())
                + " entries",
            snapshot.path);
    if (story.entryOwner.size() != trace.size())
        return makeError(ErrorCode::InvalidArgument, "the story was told of another trace", snapshot.path);

    detail::TraceWalker walker(snapshot, device);
    std::map<uint64_t, detail::TraceWalker::Live> live;
    const auto keep = [&] {
        for (const auto& [addr, l] : walker.live())
            if (!l.pending && (!pool || l.pool == *pool))
                live.emplace(addr, l);
    };
    const bool walked = walker.run(
        [&] {
            if (entry == SnapshotStory::kBeforeTrace)
                keep();
        },
        [&](size_t i) {
            if (i == entry)
                keep();
        },
        [&](uint64_t done) { return !progress || progress(done, 2 * uint64_t(trace.size())); });
    if (!walked)
        return Error { ErrorCode::Cancelled, "cancelled", snapshot.path };

    // Blocks older than the trace: the final block at the same address is the same block when it
    // is active and no alloc entry of the trace made a block there since.
    std::unordered_set<uint64_t> allocatedAt;
    for (size_t i = 0; i < trace.size(); ++i)
        if (trace[i].action == TraceAction::Alloc)
            allocatedAt.insert(trace[i].addr);
    std::unordered_map<uint64_t, StackId> finalStacks;
    for (const Segment& s : snapshot.segments)
        if (s.device == device)
            for (const Block& b : s.blocks)
                if (b.state != BlockState::Inactive && !allocatedAt.count(b.address))
                    finalStacks[b.address] = b.stack;

    Breakdown out;
    out.entry = entry;
    if (entry != SnapshotStory::kBeforeTrace && trace[entry].timeUs > 0)
        out.timeUs = trace[entry].timeUs;
    std::map<std::string, Share> owners, categories, sites;
    std::map<std::string, uint64_t> stacks;
    for (const auto& [addr, l] : live) {
        std::string owner, category, site;
        StackId stack = kNoStack;
        const uint32_t id = l.owner >= 0 && size_t(l.owner) < story.entryOwner.size()
            ? story.entryOwner[size_t(l.owner)]
            : SnapshotStory::kNone;
        if (id != SnapshotStory::kNone && id < story.owners.size()) {
            stack = trace[size_t(l.owner)].stack;
            owner = story.owners[id].name;
            category = story.owners[id].category;
        } else {
            auto f = finalStacks.find(addr);
            stack = f != finalStacks.end() ? f->second : kNoStack;
            const std::string by = describeStack(snapshot, stack);
            owner = "before the trace (allocated by "
                + (!by.empty()                   ? by
                        : f != finalStacks.end() ? std::string("unknown: the file recorded no stack for the block")
                                                 : std::string("unknown: made before the trace and freed within it; a "
                                                               "longer trace (max_entries) would tell"))
                + ")";
            category = "before the trace";
        }
        site = describeStack(snapshot, stack);
        if (site.empty())
            site = "(no stack recorded)";
        // C++17 lambdas cannot capture a structured binding (clang refuses it): capture its size.
        const auto add = [&, size = l.size](std::map<std::string, Share>& parts, const std::string& key) {
            Share& s = parts[key];
            s.name = key;
            s.bytes += size;
            ++s.blocks;
        };
        add(owners, owner);
        add(categories, category);
        add(sites, site);
        owners[owner].category = category;
        stacks[folded(snapshot, stack)] += l.size;
        out.allocated += l.size;
    }
    out.byOwner = sorted(owners);
    out.byCategory = sorted(categories);
    out.bySite = sorted(sites);
    if (out.bySite.size() > topSites) {
        Share rest;
        rest.name = "other sites (" + std::to_string(out.bySite.size() - topSites) + ")";
        for (size_t k = topSites; k < out.bySite.size(); ++k) {
            rest.bytes += out.bySite[k].bytes;
            rest.blocks += out.bySite[k].blocks;
        }
        out.bySite.resize(topSites);
        out.bySite.push_back(std::move(rest));
    }
    out.folded.assign(stacks.begin(), stacks.end());
    std::stable_sort(
        out.folded.begin(), out.folded.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return out;
}

} // namespace engine::snapshot
