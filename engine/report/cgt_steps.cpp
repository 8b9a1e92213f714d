#include "engine/report/cgt_steps.h"

#include <set>

namespace engine::report {

namespace {

// "compile 0/1 warm-up 1" / "compile 0/1 recording 2" (snapshot_story.cpp's owner names) as a step.
std::optional<CgtStep> stepOfOwner(const std::string& name)
{
    const std::string prefix = "compile ";
    if (name.rfind(prefix, 0) != 0)
        return std::nullopt;
    const size_t space = name.find(' ', prefix.size());
    if (space == std::string::npos)
        return std::nullopt;
    const std::string rest = name.substr(space + 1);
    CgtStep step;
    step.compileId = name.substr(prefix.size(), space - prefix.size());
    if (rest.rfind("warm-up ", 0) == 0)
        step.action = "warmup";
    else if (rest.rfind("recording ", 0) == 0)
        step.action = "record";
    else
        return std::nullopt;
    return step;
}

} // namespace

std::vector<CgtStep> cgtSteps(const runtime::Simulation& sim)
{
    std::vector<CgtStep> out;
    if (sim.origin.kind == runtime::RunOriginKind::Recorded) {
        // Owners come in the order of their first allocation (runtime/run_sink.h).
        std::set<std::string> seen;
        for (size_t i = 0; i < sim.owners.size(); ++i) {
            const std::string& name = sim.owners[i].graph;
            std::optional<CgtStep> step = stepOfOwner(name);
            if (!step || !seen.insert(name).second)
                continue;
            out.push_back(*step);
        }
        return out;
    }
    if (!sim.cuda)
        return out; // a TorchAir run: captures, not CUDA Graph Trees' steps
    for (const runtime::CallRecord& c : sim.calls) {
        const bool warmup = c.action == runtime::CallAction::Warmup;
        const bool record = c.action == runtime::CallAction::Capture || c.action == runtime::CallAction::Recapture;
        if (!warmup && !record)
            continue;
        CgtStep step;
        step.compileId = c.graph;
        step.action = warmup ? "warmup" : "record";
        step.call = c.index;
        step.firstEvent = c.firstEvent;
        out.push_back(step);
    }
    return out;
}

std::vector<CgtStepRow> compareCgtSteps(const runtime::Simulation& simulated, const runtime::Simulation& recorded)
{
    const std::vector<CgtStep> a = cgtSteps(simulated);
    const std::vector<CgtStep> b = cgtSteps(recorded);
    std::vector<CgtStepRow> rows(std::max(a.size(), b.size()));
    for (size_t i = 0; i < rows.size(); ++i) {
        if (i < a.size())
            rows[i].simulated = a[i];
        if (i < b.size())
            rows[i].recorded = b[i];
        rows[i].agree = i < a.size() && i < b.size() && a[i].action == b[i].action && a[i].compileId == b[i].compileId;
    }
    return rows;
}

} // namespace engine::report
