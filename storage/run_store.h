#pragma once
/// Simulation runs in the project database (tables runs, run_graphs, run_pools, run_calls,
/// run_events, run_hazards, run_owners, run_segment_changes, run_block_changes, run_keyframes;
/// docs/database.md). Memory is stored as changes per event plus a full state where the timeline's
/// KeyframeRule keeps one, so memoryAt() rebuilds any step from the nearest keyframe without
/// re-simulating. A run is written whole (writeRun) or as it is delivered (RunStreamWriter).
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/run_sink.h"
#include "engine/runtime/simulator.h"
#include "storage/write_context.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storage {

struct RunPlace {
    std::optional<int64_t> sourceId; ///< the scenario/graph source it simulated, when imported
    /// "torchair" / "npugraph_ex"; empty: the simulation's own. A recording
    /// (Simulation::origin Recorded) is stored with no backend whatever this says.
    std::string backend;
    /// The settings given on top of the scenario's config (`--set`), as NAME=VALUE texts.
    std::vector<std::string> overrides;
};

/// Writes the run: summary, graphs, pools, calls, events, hazards, owners, and the memory timeline
/// (changes and keyframes) when `memory` is given. Returns runs.id.
Result<int64_t> writeRun(WriteContext& ctx, const engine::runtime::Simulation& sim, const RunPlace& place,
    const engine::runtime::MemoryTimeline* memory);

namespace detail {
class RunRows;
/// Whether a stored run was read from a run log: its recording says so in its name
/// (engine/ingest/run_log.h: "TorchAir log", "npugraph_ex log", "PyTorch log").
bool fromRunLog(std::string_view origin, std::string_view recordedAs);
} // namespace detail

/// Writes a run as it is delivered (engine::runtime::RunSink), row by row into the same tables and
/// with the same rows as writeRun, so a run of any length is stored without ever being held in
/// memory. Runs inside the caller's transaction and WriteContext: every row counts (and may cancel),
/// and after an error or a cancel the caller rolls back. begin() inserts the runs row (no events
/// yet, keyframe_interval that of KeyframeRule) and the header's graphs, pools, calls and hazards;
/// owner() and step() add owners, events, memory changes and keyframes; end() sets the events,
/// peaks and warnings of the runs row. A call out of order (a step before begin, an event index
/// out of sequence) is an ErrorCode::InvalidArgument error.
class RunStreamWriter : public engine::runtime::RunSink {
public:
    RunStreamWriter(WriteContext& ctx, RunPlace place);
    ~RunStreamWriter() override;
    RunStreamWriter(const RunStreamWriter&) = delete;
    RunStreamWriter& operator=(const RunStreamWriter&) = delete;

    Result<void> begin(const engine::runtime::Simulation& header) override;
    Result<void> owner(engine::memory::OwnerId id, const engine::runtime::OwnerInfo& owner) override;
    Result<void> step(const engine::runtime::Event& event, const engine::runtime::MemoryDelta& delta,
        const engine::runtime::MemoryState* keyframe) override;
    Result<void> end(const engine::runtime::RunTotals& totals) override;

    /// Before begin(): the run has no memory timeline (a run log): steps come without keyframes or
    /// changes and the runs row says so (keyframe_interval 0), as writeRun without a timeline does.
    void withoutMemory() { m_memory = false; }

    /// A run whose calls are known only as it is read (a run log, engine/ingest/run_log.h): each call
    /// as it closes, between begin() and end().
    Result<void> call(const engine::runtime::CallRecord& call);
    /// Such a run's summary, once, before end(): its graphs, pools and hazards are inserted, and the
    /// runs row takes its name, call and capture counts and warnings (`summary` holds no events or calls).
    Result<void> summary(const engine::runtime::Simulation& summary);

    /// runs.id of the run being written: 0 before begin().
    int64_t runId() const { return m_runId; }
    /// Whether end() has completed the runs row.
    bool ended() const { return m_ended; }

private:
    Result<void> outOfOrder(const std::string& what) const;

    WriteContext& m_ctx;
    RunPlace m_place;
    int64_t m_runId = 0;
    int m_events = 0; ///< steps written
    int64_t m_owners = 0; ///< owners written
    bool m_ended = false;
    bool m_memory = true;
    std::vector<std::string> m_warnings; ///< the header's, completed by end()
    std::unique_ptr<detail::RunRows> m_rows;
};

struct RunRow {
    int64_t id = 0;
    std::optional<int64_t> sourceId;
    std::string scenarioPath, scenarioName, createdAt, profile;
    std::string backend; ///< empty for a recording
    /// runs.origin, recorded_as, allocator_settings, capacity_known: where the run came from.
    engine::runtime::RunOrigin origin;
    int calls = 0, events = 0, captures = 0, recaptures = 0, replays = 0, eagerCalls = 0, hazards = 0;
    uint64_t peakReserved = 0, peakAllocated = 0, capacityBytes = 0;
    bool outOfMemory = false, cancelled = false;
};
Result<std::vector<RunRow>> listRuns(Database& db);

/// The run as a Simulation (origin, events without memory, calls, graphs, pools, hazards, owners,
/// warnings, log, peaks). Options are not rebuilt: `configJson` holds the effective config as stored.
struct StoredRun {
    RunRow row;
    std::string configJson;
    engine::runtime::Simulation sim;
    /// The imported graph each FX graph of the run simulated, by TorchAir name ("graph_2" -> graphs.id):
    /// the run's source's graph with the same scenario id, as imported (stage 0, before our passes).
    /// A graph of a run without an imported source is absent.
    std::map<std::string, int64_t> graphIds;
};
Result<StoredRun> readRun(Database& db, int64_t runId);

/// The run's row and stored config only: what a form or a label needs, without its events, calls
/// and owners (readRun reads those too).
struct RunHeader {
    RunRow row;
    engine::config::Backend backend = engine::config::Backend::TorchAir; ///< row.backend read
    std::string configJson;
    std::vector<std::string> warnings;
    std::vector<std::string> categories; ///< a recording's owner categories (Simulation::categories)
    std::vector<std::string> assumptions; ///< Simulation::assumptions
};
Result<RunHeader> readRunHeader(Database& db, int64_t runId);

/// Device memory after event `event` of run `runId`: every pool's segments and blocks, as
/// Event::memory would hold it with recordMemory. Error when the run has no memory timeline or the
/// event is out of range.
Result<std::vector<engine::runtime::PoolSnapshot>> memoryAt(Database& db, int64_t runId, int event);

} // namespace storage
