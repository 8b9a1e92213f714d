// The `snapshot` command's story of one device as text and JSON (snapshot_story_text.h).
#include "gui/cli/snapshot_story_text.h"

#include "engine/report/simulation_report.h"
#include "gui/cli/cli_util.h"

#include <map>
#include <sstream>

namespace gui::cli {

namespace {

using engine::report::formatMiB;
using engine::snapshot::Breakdown;
using engine::snapshot::Share;
using engine::snapshot::SnapshotStory;

std::string entryText(size_t entry)
{
    return entry == SnapshotStory::kBeforeTrace ? std::string("before the first trace entry")
                                                : "after trace entry " + std::to_string(entry + 1);
}

nlohmann::json entryJson(size_t entry)
{
    return entry == SnapshotStory::kBeforeTrace ? nlohmann::json(nullptr) : nlohmann::json(entry + 1);
}

void shares(std::ostream& o, const char* title, const std::vector<Share>& parts, size_t most, bool category)
{
    o << "  " << title << ":\n";
    for (size_t k = 0; k < parts.size() && k < most; ++k) {
        o << "    " << pad(formatMiB(parts[k].bytes), 12, true) << "  ";
        if (category)
            o << pad(parts[k].category, 20);
        o << parts[k].name << " (" << parts[k].blocks << (parts[k].blocks == 1 ? " block)" : " blocks)") << "\n";
    }
    if (parts.size() > most)
        o << "    ... and " << parts.size() - most << " more\n";
}

nlohmann::json sharesJson(const std::vector<Share>& parts, bool category)
{
    nlohmann::json a = nlohmann::json::array();
    for (const Share& s : parts) {
        nlohmann::json j = { { "name", s.name }, { "bytes", s.bytes }, { "blocks", s.blocks } };
        if (category)
            j["category"] = s.category;
        a.push_back(std::move(j));
    }
    return a;
}

nlohmann::json breakdownJson(const Breakdown& b)
{
    nlohmann::json folded = nlohmann::json::array();
    for (const auto& [stack, bytes] : b.folded)
        folded.push_back({ { "stack", stack }, { "bytes", bytes } });
    return { { "entry", entryJson(b.entry) },
        { "time_us", b.timeUs < 0 ? nlohmann::json(nullptr) : nlohmann::json(b.timeUs) }, { "allocated", b.allocated },
        { "by_category", sharesJson(b.byCategory, false) }, { "by_owner", sharesJson(b.byOwner, true) },
        { "sites", sharesJson(b.bySite, false) }, { "folded", folded } };
}

} // namespace

engine::Result<DeviceStory> explainStory(
    const engine::snapshot::Snapshot& snapshot, engine::snapshot::SnapshotStory story, std::optional<size_t> at)
{
    DeviceStory d;
    d.story = std::move(story);
    for (const auto& p : d.story.pools) {
        auto b = engine::snapshot::breakdownAt(snapshot, d.story, p.peakEntry, &p.pool);
        if (!b)
            return b.error();
        d.poolPeaks.push_back(std::move(b.value()));
    }
    d.atPeak = !at;
    auto b = engine::snapshot::breakdownAt(snapshot, d.story, at ? *at : d.story.peakEntry);
    if (!b)
        return b.error();
    d.explained = std::move(b.value());
    return d;
}

std::string storyText(const DeviceStory& d)
{
    std::ostringstream o;
    const SnapshotStory& s = d.story;
    o << "\ndevice " << s.device << ": pools and their owners\n";
    for (size_t k = 0; k < s.pools.size(); ++k) {
        const auto& p = s.pools[k];
        o << "pool " << p.pool.str() << " [" << engine::snapshot::poolKindName(p.kind) << "] " << p.name << "\n";
        o << "  why: " << p.evidence << "\n";
        o << "  at its peak (" << entryText(p.peakEntry) << "): " << formatMiB(p.peakAllocated) << " allocated\n";
        // Every owner of the pool, in order of first allocation, with its bytes at the pool's peak;
        // then what the peak holds of no owner in the trace (blocks older than it).
        std::map<std::string, const Share*> atPeak;
        for (const Share& sh : d.poolPeaks[k].byOwner)
            atPeak[sh.name] = &sh;
        o << "  owners (bytes at the pool's peak, category, name, allocations over the trace):\n";
        size_t shown = 0;
        for (uint32_t id : p.owners) {
            const auto& owner = s.owners[id];
            auto it = atPeak.find(owner.name);
            if (++shown > 40)
                continue;
            o << "    " << pad(formatMiB(it == atPeak.end() ? 0 : it->second->bytes), 12, true) << "  "
              << pad(owner.category, 20) << owner.name << " (" << owner.allocs << ")\n";
        }
        if (shown > 40)
            o << "    ... and " << shown - 40 << " more owners\n";
        for (const Share& sh : d.poolPeaks[k].byOwner)
            if (sh.category == "before the trace")
                o << "    " << pad(formatMiB(sh.bytes), 12, true) << "  " << pad(sh.category, 20) << sh.name << "\n";
    }
    for (const auto& n : s.notes)
        o << "note: " << n << "\n";
    const Breakdown& b = d.explained;
    o << "\n"
      << (d.atPeak ? "peak explained" : "memory explained") << ": device " << s.device << " " << entryText(b.entry);
    if (b.timeUs >= 0)
        o << " (time_us " << b.timeUs << ")";
    o << ", " << formatMiB(b.allocated) << " allocated\n";
    shares(o, "by category", b.byCategory, 20, false);
    shares(o, "by owner", b.byOwner, 15, true);
    shares(o, "top allocation sites", b.bySite, 11, false);
    return o.str();
}

nlohmann::json storyJson(const DeviceStory& d)
{
    const SnapshotStory& s = d.story;
    nlohmann::json pools = nlohmann::json::array();
    for (size_t k = 0; k < s.pools.size(); ++k) {
        const auto& p = s.pools[k];
        std::map<std::string, uint64_t> atPeak;
        for (const Share& sh : d.poolPeaks[k].byOwner)
            atPeak[sh.name] = sh.bytes;
        nlohmann::json owners = nlohmann::json::array();
        for (uint32_t id : p.owners) {
            const auto& o = s.owners[id];
            auto it = atPeak.find(o.name);
            owners.push_back({ { "name", o.name }, { "category", o.category },
                { "compile_id", o.compileId.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.compileId) },
                { "module", o.module.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.module) },
                { "user_frame", o.userFrame }, { "evidence", o.evidence }, { "allocs", o.allocs },
                { "alloc_bytes", o.allocBytes }, { "first_entry", o.firstEntry + 1 },
                { "bytes_at_pool_peak", it == atPeak.end() ? 0 : it->second } });
        }
        pools.push_back({ { "pool", { p.pool.first, p.pool.second } },
            { "kind", engine::snapshot::poolKindName(p.kind) }, { "name", p.name }, { "evidence", p.evidence },
            { "peak_allocated", p.peakAllocated }, { "peak_entry", entryJson(p.peakEntry) }, { "owners", owners },
            { "at_peak", breakdownJson(d.poolPeaks[k]) } });
    }
    return { { "device", s.device }, { "peak_allocated", s.peakAllocated }, { "peak_entry", entryJson(s.peakEntry) },
        { "pools", pools }, { "explained", breakdownJson(d.explained) }, { "explained_at_peak", d.atPeak },
        { "notes", s.notes } };
}

} // namespace gui::cli
