// A TORCH_TRACE's facts for a memory snapshot's story (snapshot_hints.h).
#include "engine/ingest/snapshot_hints.h"

#include <algorithm>
#include <cmath>

namespace engine::ingest {

namespace {

void addRecording(snapshot::SnapshotHints& h, const readers::trace::TraceSpan& s, const std::string& compileId)
{
    if (s.name != "CUDAGraphNode.record" && s.name != "dynamo")
        return;
    auto id = s.args.find("compile_id");
    snapshot::SnapshotHints::Recording r;
    r.compileId = id != s.args.end() ? id->second : compileId;
    if (r.compileId.empty())
        return;
    r.beginUs = int64_t(std::floor(s.startUs));
    r.endUs = int64_t(std::ceil(s.endUs));
    (s.name == "dynamo" ? h.compiles : h.recordings).push_back(std::move(r));
}

} // namespace

snapshot::SnapshotHints snapshotHints(const std::vector<readers::trace::TorchTrace>& traces)
{
    snapshot::SnapshotHints h;
    for (const auto& t : traces) {
        h.source += (h.source.empty() ? "" : ", ") + t.path;
        for (const auto& c : t.compiles) {
            if (c.outputCode && !c.outputCode->filename.empty()) {
                const std::string& f = c.outputCode->filename;
                const size_t slash = f.find_last_of('/');
                h.moduleCompileId[slash == std::string::npos ? f : f.substr(slash + 1)] = c.id.text();
            }
            for (const auto& s : c.spans)
                addRecording(h, s, c.id.text());
        }
        for (const auto& s : t.spans)
            addRecording(h, s, std::string());
    }
    for (auto* v : { &h.recordings, &h.compiles })
        std::stable_sort(v->begin(), v->end(), [](const auto& a, const auto& b) { return a.beginUs < b.beginUs; });
    return h;
}

} // namespace engine::ingest
