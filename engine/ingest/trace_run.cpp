// The run a TORCH_TRACE recorded, beyond its graphs (engine/ingest/trace_run.h).
#include "engine/ingest/trace_run.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace engine::ingest {

using nlohmann::json;

const TraceRunCompile* TraceRun::compile(const std::string& id) const
{
    for (const auto& c : compiles)
        if (c.compileId == id)
            return &c;
    return nullptr;
}

namespace {

json parseObject(const std::string& text)
{
    json v = json::parse(text, nullptr, false);
    return v.is_object() ? v : json::object();
}

std::string str(const json& m, const char* key)
{
    auto it = m.find(key);
    return it != m.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// A config dump ("inductor_config": "{...}") as name -> value JSON text.
std::map<std::string, std::string> configOf(const json& metrics, const char* key)
{
    std::map<std::string, std::string> out;
    const json dump = parseObject(str(metrics, key));
    for (auto it = dump.begin(); it != dump.end(); ++it)
        out[it.key()] = it->dump();
    return out;
}

bool isTrue(const std::map<std::string, std::string>& config, const char* name, bool otherwise)
{
    auto it = config.find(name);
    return it == config.end() ? otherwise : it->second == "true";
}

} // namespace

TraceRun readTraceRun(const std::vector<readers::trace::TorchTrace>& traces)
{
    TraceRun run;
    if (traces.empty())
        return run;
    const readers::trace::TorchTrace& t = traces.front();
    run.path = t.path;
    for (const auto& c : t.compiles) {
        // Attempts of one compile id ("0/0" restarted after a graph break as "0/0_1") are one compile:
        // the runtime spans name it without the attempt.
        readers::trace::CompileId plain = c.id;
        plain.attempt = 0;
        const std::string id = plain.text();
        auto found = std::find_if(
            run.compiles.begin(), run.compiles.end(), [&](const TraceRunCompile& x) { return x.compileId == id; });
        if (found == run.compiles.end()) {
            run.compiles.emplace_back();
            found = run.compiles.end() - 1;
        }
        TraceRunCompile& rc = *found;
        rc.compileId = id;
        rc.frame = c.id.frame;
        bool graph = false;
        for (const auto& g : c.graphs)
            if (g.name != "dynamo_output_graph")
                graph = true;
        if (graph || !rc.hasGraph)
            rc.failType = c.failType; // the attempt that made the graph tells how the compile ended
        rc.hasGraph = rc.hasGraph || graph;
        if (!run.cudaDevice)
            for (const auto& s : c.sources)
                if (s.device.rfind("cuda", 0) == 0) {
                    run.cudaDevice = true;
                    run.deviceFrom = "compile " + rc.compileId + "'s input " + s.source + " is on " + s.device;
                    break;
                }
        if (!c.metricsJson.empty()) {
            const json m = parseObject(c.metricsJson);
            if (rc.frameName.empty())
                rc.frameName = str(m, "co_name");
            auto dynamo = configOf(m, "dynamo_config");
            if (!dynamo.empty()) {
                rc.dynamicKnown = true;
                if (!isTrue(dynamo, "assume_static_by_default", true))
                    rc.dynamic = true;
                else if (!isTrue(dynamo, "automatic_dynamic_shapes", true))
                    rc.dynamic = false;
                run.dynamoConfig = std::move(dynamo);
                run.configFrom = "compilation_metrics of compile " + c.id.text();
            }
            auto inductor = configOf(m, "inductor_config");
            if (!inductor.empty())
                run.inductorConfig = std::move(inductor);
        }
    }
    // Runtime spans: of no compile (the usual place) or, in case a writer tagged them, of one.
    std::vector<const readers::trace::TraceSpan*> spans;
    for (const auto& s : t.spans)
        spans.push_back(&s);
    for (const auto& c : t.compiles)
        for (const auto& s : c.spans)
            spans.push_back(&s);
    for (const auto* s : spans) {
        const bool first = s->name == "cudagraphify.get_container";
        const bool record = s->name == "CUDAGraphNode.record";
        if (!first && !record)
            continue;
        run.cudagraphs = true;
        TraceRunStep step;
        step.kind = first ? TraceRunStep::Kind::FirstRun : TraceRunStep::Kind::Record;
        auto id = s->args.find("compile_id");
        step.compileId = id == s->args.end() ? std::string() : id->second;
        auto back = s->args.find("is_backward");
        step.backward = back != s->args.end() && back->second == "true";
        step.startUs = s->startUs;
        run.steps.push_back(std::move(step));
    }
    std::stable_sort(run.steps.begin(), run.steps.end(),
        [](const TraceRunStep& a, const TraceRunStep& b) { return a.startUs < b.startUs; });
    run.unknown.push_back("replays: a replay leaves no record in a TORCH_TRACE, so how many calls replayed "
                          "between and after the recordings is not known (the +cudagraphs log, TORCH_LOGS="
                          "\"+cudagraphs\", names every call; or list the calls with --call-list)");
    return run;
}

} // namespace engine::ingest
