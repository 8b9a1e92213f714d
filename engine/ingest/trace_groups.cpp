// TORCH_TRACE compile ids and Inductor's output_code.py as groups of stages (engine/ingest/trace_groups.h).
#include "engine/ingest/trace_groups.h"

#include "engine/ingest/source.h"
#include "engine/readers/fx_reader.h"
#include "engine/readers/inductor_code.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace engine::ingest {

namespace {

/// Order of a graph payload within its compile: Dynamo's, then AOT's, then Inductor's post-grad;
/// the graph artifacts of the passes keep their log order after these (-1: not a stage).
int stageRank(const std::string& name)
{
    if (name == "dynamo_output_graph")
        return 0;
    if (name == "aot_inference_graph" || name == "aot_forward_graph" || name == "aot_backward_graph"
        || name == "aot_joint_graph")
        return 1;
    if (name == "inductor_post_grad_graph")
        return 2;
    return -1;
}

std::string phaseOf(const readers::trace::TraceCompile& c)
{
    for (const auto& g : c.graphs) {
        if (g.name == "aot_inference_graph")
            return "inference";
        if (g.name == "aot_forward_graph")
            return "forward";
        if (g.name == "aot_backward_graph")
            return "backward";
    }
    return "";
}

bool isParameterName(const std::string& dynamoName) { return dynamoName.find("_parameters_") != std::string::npos; }
bool isBufferName(const std::string& dynamoName) { return dynamoName.find("_buffers_") != std::string::npos; }

} // namespace

int applyTraceInputKinds(
    Graph& aot, const Graph* dynamo, const std::vector<int>& staticInputIndices, const std::string& compileId)
{
    std::vector<int> aotInputs = aot.placeholders();
    std::vector<int> dynamoInputs = dynamo ? dynamo->placeholders() : std::vector<int> {};
    const bool samePositions = dynamo && dynamoInputs.size() == aotInputs.size();
    const std::set<int> statics(staticInputIndices.begin(), staticInputIndices.end());
    int told = 0;
    for (size_t pos = 0; pos < aotInputs.size(); ++pos) {
        Node& n = aot.nodes[size_t(aotInputs[pos])];
        if (n.inputKind == InputKind::SymInt || !n.inputKindFrom.empty())
            continue;
        const std::string dynamoName = samePositions ? dynamo->nodes[size_t(dynamoInputs[pos])].name : std::string();
        const std::string where = "TORCH_TRACE compile " + compileId + ": ";
        if (!dynamoName.empty() && isParameterName(dynamoName)) {
            n.inputKind = InputKind::Parameter;
            n.inputKindFrom = where + "Dynamo's input " + dynamoName + " at the same position (an nn.Module parameter)";
        } else if (!dynamoName.empty() && isBufferName(dynamoName)) {
            n.inputKind = InputKind::Buffer;
            n.inputKindFrom = where + "Dynamo's input " + dynamoName + " at the same position (an nn.Module buffer)";
        } else if (statics.count(int(pos))) {
            n.inputKind = InputKind::StaticAddress;
            n.inputKindFrom = where + "fw_metadata's static_input_indices lists input " + std::to_string(pos)
                + (dynamoName.empty() ? std::string() : " (Dynamo's " + dynamoName + ")")
                + ", and it is no parameter or buffer: a static address (torch._dynamo.mark_static_address)";
        } else if (!staticInputIndices.empty() || !dynamoName.empty()) {
            n.inputKind = InputKind::UserInput;
            n.inputKindFrom = where
                + (statics.empty() ? std::string("Dynamo's input ") + dynamoName + " at the same position is no parameter or buffer"
                                   : "not in fw_metadata's static_input_indices"
                                       + (dynamoName.empty() ? std::string() : " (Dynamo's " + dynamoName + ")"));
        } else {
            continue;
        }
        ++told;
    }
    return told;
}

readers::DebugDir traceGraphGroups(const std::vector<readers::trace::TorchTrace>& traces)
{
    readers::DebugDir dir;
    std::set<int> ranks;
    for (const auto& t : traces)
        ranks.insert(t.rank ? *t.rank : -1);
    const bool severalRanks = ranks.size() > 1;
    for (const auto& t : traces) {
        if (dir.path.empty())
            dir.path = t.path;
        for (const auto& d : t.diagnostics)
            dir.diagnostics.push_back({ readers::Diagnostic::Severity::Warning, t.path, int(d.line), 0, d.message });
        for (const auto& c : t.compiles) {
            readers::DebugGroup group;
            group.directory = t.path;
            group.model = (severalRanks && t.rank ? "rank " + std::to_string(*t.rank) + ": " : std::string()) + c.id.text();
            group.phase = phaseOf(c);
            group.backend = "inductor";
            group.rank = t.rank;
            group.run = std::filesystem::path(t.path).filename().string();
            std::vector<const readers::trace::TracePayload*> payloads;
            for (const auto& g : c.graphs)
                if (stageRank(g.name) >= 0)
                    payloads.push_back(&g);
            std::stable_sort(payloads.begin(), payloads.end(),
                [](const auto* a, const auto* b) { return stageRank(a->name) < stageRank(b->name); });
            const Graph* dynamo = nullptr;
            int number = 0;
            for (const auto* g : payloads) {
                readers::DebugStage stage;
                stage.kind = readers::DebugStage::Kind::FxCode;
                stage.number = number++;
                stage.file = g->name;
                stage.path = t.path + ":" + std::to_string(g->place.line);
                stage.pass = g->name;
                stage.preAot = g->name == "dynamo_output_graph";
                if (!g->md5Ok)
                    stage.diagnostics.push_back({ readers::Diagnostic::Severity::Warning, t.path, int(g->place.line), 0,
                        "the payload does not match its md5 (has_payload): the log is damaged here" });
                auto read = readers::readFxCode(g->text, stage.path);
                if (!read) {
                    stage.error = read.error();
                } else if (read->graphs.empty()) {
                    stage.note = "not read: the payload holds no FX graph";
                } else {
                    for (auto& d : read->diagnostics)
                        stage.diagnostics.push_back(std::move(d));
                    stage.graph = std::move(read->graphs.front());
                    stage.graph->id = c.id.text() + "/" + g->name;
                }
                group.stages.push_back(std::move(stage));
            }
            // Kinds for the AOT and post-grad graphs, from this compile's own evidence. (`dynamo`
            // points into group.stages, which is complete now and not resized below.)
            for (const auto& stage : group.stages)
                if (stage.preAot && stage.graph && !dynamo)
                    dynamo = &*stage.graph;
            for (auto& stage : group.stages)
                if (stage.graph && !stage.preAot)
                    applyTraceInputKinds(*stage.graph, dynamo, c.staticInputIndices, c.id.text());
            if (group.stages.empty())
                group.diagnostics.push_back({ readers::Diagnostic::Severity::Warning, t.path, int(c.first.line), 0,
                    "compile " + c.id.text() + " has no graph in the log"
                        + (c.failType.empty() ? std::string() : " (it failed: " + c.failType + ": " + c.failReason + ")") });
            dir.groups.push_back(std::move(group));
        }
    }
    return dir;
}

Result<readers::DebugDir> inductorCodeGroups(const std::string& path)
{
    auto code = readers::inductor::readInductorOutputCodeFile(path);
    if (!code)
        return code.error();
    readers::DebugDir dir;
    dir.path = path;
    readers::DebugGroup group;
    group.directory = std::filesystem::path(path).parent_path().string();
    group.model = std::filesystem::path(path).parent_path().filename().string();
    group.phase = "output_code";
    group.backend = "inductor";
    group.layout = readers::DebugLayout::Inductor;
    readers::DebugStage stage;
    stage.number = 0;
    stage.file = std::filesystem::path(path).filename().string();
    stage.path = path;
    stage.pass = "output_code";
    if (code->graph) {
        stage.graph = std::move(*code->graph);
        code->graph.reset(); // the stage holds it now
        if (stage.graph->id.empty())
            stage.graph->id = "call";
    } else {
        stage.note = "not read as a graph: " + (code->entry.empty() ? std::string("no call() found") : "its " + code->entry + " holds no plan we read");
    }
    stage.diagnostics = code->diagnostics;
    group.stages.push_back(std::move(stage));
    group.inductorCode = std::move(code.value());
    dir.groups.push_back(std::move(group));
    return dir;
}

Result<readers::DebugDir> readStageGroups(const std::string& path)
{
    auto detected = detectSource(path);
    if (!detected)
        return detected.error();
    switch (detected->kind) {
    case SourceKind::DebugDir:
        return readers::readDebugDir(path);
    case SourceKind::TorchTrace: {
        auto traces = readers::trace::readTorchTraceDir(path);
        if (!traces)
            return traces.error();
        return traceGraphGroups(*traces);
    }
    case SourceKind::InductorCode:
        return inductorCodeGroups(path);
    case SourceKind::FxGraph: {
        auto read = readGraphFile(path);
        if (!read)
            return read.error();
        readers::DebugDir dir;
        dir.path = path;
        readers::DebugGroup group;
        group.directory = path;
        group.model = std::filesystem::path(path).filename().string();
        int number = 0;
        for (auto& g : read->graphs) {
            readers::DebugStage stage;
            stage.number = number++;
            stage.file = group.model;
            stage.path = path;
            stage.pass = g.id;
            stage.graph = std::move(g);
            group.stages.push_back(std::move(stage));
        }
        group.diagnostics = std::move(read->diagnostics);
        dir.groups.push_back(std::move(group));
        return dir;
    }
    default:
        return Error { ErrorCode::InvalidArgument,
            std::string("holds no graph stages: it is ") + sourceKindName(detected->kind) + " (" + detected->evidence + ")",
            path };
    }
}

} // namespace engine::ingest
