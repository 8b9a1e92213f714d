// `aclgraph-inspector snapshot FILE [--trace TRACE] [--at ENTRY|peak] [--json] [--device N] [-o FILE]`:
// what a real memory snapshot (torch.cuda.memory._dump_snapshot / torch_npu) says per pool, who
// owns each pool's memory at its peak, and why the device's peak is where it is. The JSON is
// documented in docs/snapshots.md.
#include "engine/ingest/snapshot_hints.h"
#include "engine/ingest/source.h"
#include "engine/report/simulation_report.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"
#include "engine/snapshot/snapshot_story.h"
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"
#include "gui/cli/snapshot_story_text.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

namespace gui::cli {

namespace {

const char* kSnapshotUsage
    = "usage: aclgraph-inspector snapshot FILE [--trace TRACE_FILE_OR_DIR] [--at ENTRY|peak] [--json] [--device N] "
      "[-o FILE]\n";

using engine::snapshot::PoolSummary;
using engine::snapshot::Snapshot;

nlohmann::json poolJson(const PoolSummary& p)
{
    return { { "device", p.device }, { "pool", { p.pool.first, p.pool.second } }, { "segments", p.segments },
        { "reserved", p.reserved }, { "allocated", p.allocated }, { "active", p.active }, { "requested", p.requested },
        { "peak_reserved", p.peakReserved }, { "peak_allocated", p.peakAllocated },
        { "graph", p.graph.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.graph) },
        { "graph_evidence", p.graphEvidence } };
}

std::string toJson(const Snapshot& s, const std::vector<PoolSummary>& pools, std::optional<int> device,
    const std::vector<DeviceStory>& stories)
{
    nlohmann::json j;
    j["file"] = s.path;
    j["protocol"] = s.protocol;
    j["bare_list"] = s.bareList;
    j["pools"] = nlohmann::json::array();
    uint64_t reserved = 0, allocated = 0;
    int segments = 0;
    for (const PoolSummary& p : pools) {
        j["pools"].push_back(poolJson(p));
        reserved += p.reserved;
        allocated += p.allocated;
        segments += p.segments;
    }
    j["totals"] = { { "segments", segments }, { "reserved", reserved }, { "allocated", allocated } };
    nlohmann::json traces = nlohmann::json::array();
    for (size_t d = 0; d < s.deviceTraces.size(); ++d)
        if (!device || int(d) == *device)
            traces.push_back({ { "device", int(d) }, { "entries", s.deviceTraces[d].size() } });
    j["traces"] = traces;
    j["frames"] = s.frames.size();
    j["stacks"] = s.stacks.size();
    nlohmann::json settings = nlohmann::json::object();
    for (const auto& [k, v] : s.allocatorSettings)
        settings[k] = v;
    j["allocator_settings"] = settings;
    j["warnings"] = s.warnings;
    j["stories"] = nlohmann::json::array();
    for (const DeviceStory& d : stories)
        j["stories"].push_back(storyJson(d));
    return j.dump(1) + "\n";
}

std::string toText(const Snapshot& s, const std::vector<PoolSummary>& pools, const std::vector<DeviceStory>& stories)
{
    using engine::report::formatMiB;
    std::ostringstream o;
    o << "snapshot " << s.path << " (pickle protocol " << s.protocol << (s.bareList ? ", segment list only" : "")
      << ")\n";
    o << pad("device", 7) << pad("pool", 16) << pad("segments", 9, true) << pad("reserved", 14, true)
      << pad("allocated", 14, true) << pad("peak reserved", 15, true) << pad("peak allocated", 16, true) << "  graph\n";
    uint64_t reserved = 0, allocated = 0;
    int segments = 0;
    for (const PoolSummary& p : pools) {
        o << pad(std::to_string(p.device), 7) << pad(p.pool.str(), 16) << pad(std::to_string(p.segments), 9, true)
          << pad(formatMiB(p.reserved), 14, true) << pad(formatMiB(p.allocated), 14, true)
          << pad(formatMiB(p.peakReserved), 15, true) << pad(formatMiB(p.peakAllocated), 16, true) << "  "
          << (p.graph.empty() ? "-" : p.graph) << "\n";
        if (!p.graphEvidence.empty())
            o << "        why: " << p.graphEvidence << "\n";
        reserved += p.reserved;
        allocated += p.allocated;
        segments += p.segments;
    }
    o << "total: " << pools.size() << " pools, " << segments << " segments, " << formatMiB(reserved) << " reserved, "
      << formatMiB(allocated) << " allocated\n";
    for (size_t d = 0; d < s.deviceTraces.size(); ++d)
        if (!s.deviceTraces[d].empty())
            o << "trace of device " << d << ": " << s.deviceTraces[d].size() << " entries\n";
    for (const DeviceStory& d : stories)
        o << storyText(d);
    for (const std::string& w : s.warnings)
        o << "warning: " << w << "\n";
    return o.str();
}

} // namespace

int snapshotCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string file, outPath, tracePath, at;
    bool json = false;
    std::optional<int> device;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") {
            json = true;
        } else if ((a == "--trace" || a == "--at") && i + 1 < args.size()) {
            (a == "--trace" ? tracePath : at) = args[++i];
        } else if ((a == "--device" || a == "-o") && i + 1 < args.size()) {
            const std::string& v = args[++i];
            if (a == "-o") {
                outPath = v;
                continue;
            }
            try {
                size_t used = 0;
                device = std::stoi(v, &used);
                if (used != v.size() || *device < 0)
                    throw std::invalid_argument(v);
            } catch (const std::exception&) {
                err << "snapshot: --device takes a device ordinal, not '" << v << "'\n" << kSnapshotUsage;
                return 2;
            }
        } else if (a == "--help" || a == "-h") {
            out << kSnapshotUsage;
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            err << "snapshot: unknown option " << a << "\n" << kSnapshotUsage;
            return 2;
        } else if (file.empty()) {
            file = a;
        } else {
            err << "snapshot: one FILE only\n" << kSnapshotUsage;
            return 2;
        }
    }
    if (file.empty()) {
        err << kSnapshotUsage;
        return 2;
    }
    // Another kind of input gets its name, not a pickle opcode error at offset 0.
    if (auto detected = engine::ingest::detectSource(file);
        detected && detected->kind != engine::ingest::SourceKind::MemorySnapshot) {
        err << "error: " << file << ": not a memory snapshot: " << detected->evidence << " ("
            << engine::ingest::sourceKindName(detected->kind)
            << "); `simulate`, `passes`, `stages`, `import` and `report` read it\n";
        return 1;
    }
    auto snap = engine::snapshot::readSnapshotFile(file);
    if (!snap.ok()) {
        err << "error: " << snap.error().toString() << "\n";
        return 1;
    }
    std::optional<size_t> atEntry; // 0-based; none: the peak
    if (!at.empty() && at != "peak") {
        try {
            size_t used = 0;
            const long long v = std::stoll(at, &used);
            if (used != at.size() || v < 1)
                throw std::invalid_argument(at);
            atEntry = size_t(v - 1);
        } catch (const std::exception&) {
            err << "snapshot: --at takes a trace entry number (1 = the first) or 'peak', not '" << at << "'\n"
                << kSnapshotUsage;
            return 2;
        }
    }
    std::optional<engine::snapshot::SnapshotHints> hints;
    if (!tracePath.empty()) {
        auto traces = engine::readers::trace::readTorchTraceDir(tracePath);
        if (!traces.ok()) {
            err << "error: " << traces.error().toString() << "\n";
            return 1;
        }
        hints = engine::ingest::snapshotHints(*traces);
    }
    // The pools named and each device's story told once, with the trace's compile ids when given.
    std::vector<engine::snapshot::SnapshotStory> told;
    auto summarized = engine::snapshot::summarizePools(*snap, {}, hints ? &*hints : nullptr, &told);
    if (!summarized.ok()) {
        err << "error: " << summarized.error().toString() << "\n";
        return 1;
    }
    std::vector<PoolSummary> pools;
    for (PoolSummary& p : summarized.value())
        if (!device || p.device == *device)
            pools.push_back(std::move(p));
    std::vector<DeviceStory> stories;
    for (engine::snapshot::SnapshotStory& s : told) {
        if (device && s.device != *device)
            continue;
        auto story = explainStory(*snap, std::move(s), atEntry);
        if (!story.ok()) {
            err << "error: " << story.error().toString() << "\n";
            return 1;
        }
        stories.push_back(std::move(story.value()));
    }
    return writeResult(json ? toJson(*snap, pools, device, stories) : toText(*snap, pools, stories), outPath, out, err);
}

} // namespace gui::cli
