// Storing a fresh simulation and simulating a stored run again with changed settings (resimulate.h).
#include "storage/resimulate.h"

#include "engine/config/setting_text.h"
#include "engine/scenario/scenario.h"
#include "storage/project_db.h"
#include "storage/run_store.h"
#include "storage/simulate_source.h"
#include "storage/store_util.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace storage {

namespace {

using engine::config::Setting;

/// The sources row of the scenario file itself, when the project imported it; for a scenario of a log
/// (a small file with "log", scenario.h LogSource), the row of its graphs' file or folder, so the run's
/// steps draw the graphs the project holds.
std::optional<int64_t> sourceOf(Database& db, const std::string& path)
{
    auto s = db.prepare("SELECT id FROM sources WHERE path = ? ORDER BY id DESC LIMIT 1");
    if (!s)
        return std::nullopt;
    auto lookUp = [&s](const std::string& p) -> std::optional<int64_t> {
        s->reset();
        s->bind(1, detail::absolutePath(p));
        auto row = s->step();
        if (!row || !*row)
            return std::nullopt;
        return s->columnInt(0);
    };
    if (auto own = lookUp(path))
        return own;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size > (64u << 10))
        return std::nullopt;
    auto scenario = engine::scenario::readScenarioFile(path);
    if (!scenario || !scenario->log)
        return std::nullopt;
    return lookUp(scenario->log->graphs);
}

/// storeSimulation with the write's cancel point (`onRows` returns false to stop).
Result<int64_t> store(Database& db, const std::string& path, const engine::runtime::Simulation& sim,
    const engine::runtime::MemoryTimeline& timeline, const std::vector<std::string>& overrides,
    std::function<bool(int64_t)> onRows, std::optional<int64_t> sourceId = std::nullopt)
{
    RunPlace place;
    place.sourceId = sourceId ? sourceId : sourceOf(db, path);
    place.backend = engine::runtime::runtimeName(sim);
    place.overrides = overrides;
    auto tx = Transaction::begin(db);
    if (!tx)
        return tx.error();
    WriteContext ctx(db, std::move(onRows));
    auto id = writeRun(ctx, sim, place, &timeline);
    if (!id)
        return id.error();
    if (auto r = tx->commit(); !r)
        return r.error();
    return *id;
}

Result<std::vector<Setting>> parseSettings(const std::vector<std::string>& texts)
{
    std::vector<Setting> out;
    for (const std::string& text : texts) {
        auto s = engine::config::parseSetting(text);
        if (!s)
            return s.error();
        out.push_back(std::move(s.value()));
    }
    return out;
}

struct BaseRun {
    std::string scenarioPath;
    std::vector<std::string> overrides;
    int calls = 0;
    int graphs = 0;
    std::optional<int64_t> sourceId; ///< the run's source: the what-if run is linked to it too
};

Result<std::vector<std::string>> overridesOf(Database& db, int64_t runId, const Statement& s, int column)
{
    auto list = detail::parseStringArray(s.columnText(column));
    if (!list)
        return detail::badRow(db, "run " + std::to_string(runId) + ": overrides are malformed");
    return std::move(*list);
}

Result<BaseRun> readBase(Database& db, int64_t runId)
{
    auto s = detail::selectRun(db, runId,
        "scenario_path, calls, (SELECT count(*) FROM run_graphs WHERE run_id = runs.id), overrides, origin, source_id");
    if (!s)
        return s.error();
    if (s->columnText(4) == engine::runtime::runOriginKindName(engine::runtime::RunOriginKind::Recorded))
        return Error { ErrorCode::InvalidArgument,
            "run " + std::to_string(runId)
                + " is a recording: it has no scenario or TorchAir options to simulate again",
            s->columnText(0) };
    auto overrides = overridesOf(db, runId, *s, 3);
    if (!overrides)
        return overrides.error();
    return BaseRun { s->columnText(0), std::move(*overrides), int(s->columnInt(1)), int(s->columnInt(2)),
        detail::optionalInt(*s, 5) };
}

/// A finished run with a memory timeline of `path` whose overrides mean `settings`.
Result<std::optional<int64_t>> findSameRun(Database& db, const std::string& path, const std::vector<Setting>& settings)
{
    auto s = db.prepare(
        "SELECT id, overrides FROM runs WHERE scenario_path = ? AND origin = 'simulated' AND cancelled = 0 AND "
        "keyframe_interval > 0 ORDER BY id");
    if (!s)
        return s.error();
    s->bind(1, path);
    std::optional<int64_t> found;
    auto r = detail::forEachRow(*s, [&]() -> Result<void> {
        auto texts = detail::parseStringArray(s->columnText(1));
        if (found || !texts)
            return {};
        // Stored overrides were merged when written, but a run stored by `simulate --set` may name
        // an option twice.
        auto stored = parseSettings(*texts);
        if (stored && engine::config::sameSettings(engine::config::mergeSettings({}, *stored), settings))
            found = s->columnInt(0);
        return {};
    });
    if (!r)
        return r.error();
    return found;
}

} // namespace

Result<int64_t> storeSimulation(Database& db, const std::string& scenarioPath, const engine::runtime::Simulation& sim,
    const engine::runtime::MemoryTimeline& timeline, const std::vector<std::string>& overrides,
    std::optional<int64_t> sourceId)
{
    return store(db, scenarioPath, sim, timeline, overrides, {}, sourceId);
}

Result<std::vector<std::string>> readRunOverrides(Database& db, int64_t runId)
{
    auto s = detail::selectRun(db, runId, "overrides");
    if (!s)
        return s.error();
    return overridesOf(db, runId, *s, 0);
}

Result<ResimulateResult> resimulate(const ResimulateRequest& request)
{
    Database::OpenOptions existing;
    existing.create = false;
    auto db = openProject(request.dbPath, existing);
    if (!db)
        return db.error();
    auto base = readBase(*db, request.baseRunId);
    if (!base)
        return base.error();
    auto earlier = parseSettings(base->overrides);
    auto later = parseSettings(request.overrides);
    if (!earlier || !later)
        return !earlier ? earlier.error() : later.error();
    const std::vector<Setting> merged = engine::config::mergeSettings(*earlier, *later);
    std::vector<std::string> mergedTexts;
    for (const Setting& s : merged)
        mergedTexts.push_back(engine::config::settingText(s));

    auto same = findSameRun(*db, base->scenarioPath, merged);
    if (!same)
        return same.error();
    if (*same)
        return ResimulateResult { **same, true };

    const std::string& path = base->scenarioPath;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return Error { ErrorCode::NotFound,
            "the scenario of run " + std::to_string(request.baseRunId) + " is no longer there (moved or deleted)",
            path };
    SimulateFileRequest file;
    file.path = path;
    file.overrides = mergedTexts;
    file.calls = std::max(1, base->calls / std::max(1, base->graphs));
    file.progress = request.progress;
    auto simulated = simulateFile(file);
    if (!simulated)
        return simulated.error();
    const engine::runtime::Simulation* sim = &simulated->sim;
    const int total = sim->callsSimulated;
    std::function<bool(int64_t)> onRows;
    if (request.progress)
        onRows = [&request, total](int64_t) { return !request.progress(total, total); };
    auto id = store(*db, path, *sim, *simulated->timeline, mergedTexts, std::move(onRows), base->sourceId);
    if (!id)
        return id.error();
    return ResimulateResult { *id, false };
}

} // namespace storage
