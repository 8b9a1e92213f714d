// A TORCH_TRACE's facts for a memory snapshot's story (snapshot_hints.h).
#include "engine/ingest/snapshot_hints.h"

#include "engine/snapshot/story_frames.h"

#include <algorithm>
#include <cmath>
#include <set>

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

void sortSpans(snapshot::SnapshotHints& h)
{
    for (auto* v : { &h.recordings, &h.compiles })
        std::stable_sort(v->begin(), v->end(), [](const auto& a, const auto& b) { return a.beginUs < b.beginUs; });
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
                const std::string module = slash == std::string::npos ? f : f.substr(slash + 1);
                h.moduleCompileId[module] = c.id.text();
                h.moduleSource[module] = t.path;
            }
            for (const auto& s : c.spans)
                addRecording(h, s, c.id.text());
        }
        for (const auto& s : t.spans)
            addRecording(h, s, std::string());
    }
    sortSpans(h);
    return h;
}

void mergeHints(snapshot::SnapshotHints& into, const snapshot::SnapshotHints& from)
{
    if (!from.source.empty())
        into.source += (into.source.empty() ? "" : ", ") + from.source;
    for (const auto& [module, id] : from.moduleCompileId)
        into.moduleCompileId.emplace(module, id);
    for (const auto& [module, log] : from.moduleSource)
        into.moduleSource.emplace(module, log);
    into.recordings.insert(into.recordings.end(), from.recordings.begin(), from.recordings.end());
    into.compiles.insert(into.compiles.end(), from.compiles.begin(), from.compiles.end());
    sortSpans(into);
}

SnapshotRunMarks snapshotRunMarks(const snapshot::Snapshot& snapshot)
{
    SnapshotRunMarks marks;
    std::set<std::string> modules;
    for (const snapshot::Frame& f : snapshot.frames)
        if (snapshot::story_detail::isGeneratedModule(f.filename))
            modules.insert(snapshot::story_detail::baseName(f.filename));
    marks.modules.assign(modules.begin(), modules.end());
    for (const auto& trace : snapshot.deviceTraces)
        for (size_t i = 0; i < trace.size(); ++i) {
            const int64_t t = trace[i].timeUs;
            if (t <= 0)
                continue;
            marks.firstUs = marks.firstUs == 0 ? t : std::min(marks.firstUs, t);
            marks.lastUs = std::max(marks.lastUs, t);
        }
    return marks;
}

std::string sameRunEvidence(const snapshot::SnapshotHints& hints, const SnapshotRunMarks& marks)
{
    std::vector<std::string> named;
    for (const std::string& m : marks.modules)
        if (hints.moduleCompileId.count(m))
            named.push_back(m);
    if (!named.empty()) {
        std::string list;
        for (size_t i = 0; i < named.size() && i < 3; ++i)
            list += (i ? ", " : "") + named[i];
        if (named.size() > 3)
            list += ", ...";
        return "its inductor_output_code records name " + std::to_string(named.size()) + " of the snapshot's "
            + std::to_string(marks.modules.size()) + " generated modules (" + list + ")";
    }
    if (marks.lastUs <= 0)
        return {};
    size_t inside = 0;
    for (const auto& r : hints.recordings)
        if (r.beginUs >= marks.firstUs && r.endUs <= marks.lastUs)
            ++inside;
    if (inside == 0)
        return {};
    return "its CUDAGraphNode.record spans (" + std::to_string(inside) + " of "
        + std::to_string(hints.recordings.size()) + ") fall inside the snapshot's time range ("
        + std::to_string(marks.firstUs) + "-" + std::to_string(marks.lastUs) + " us)";
}

} // namespace engine::ingest
