#pragma once
/// Internal to engine/ingest's log reader (run_log.h): the builders that turn one process's entries
/// into its run. run_log.cpp owns the file, the lines, the processes and continuation lines;
/// torchair_log.cpp interprets TorchAir's messages; pytorch_log.cpp PyTorch's TORCH_LOGS messages.
#include "engine/ingest/run_log.h"
#include "engine/runtime/hazard_rules.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>

namespace engine::ingest::detail {

/// How often a thing repeats before the log's run calls it a hazard: recaptures of one FX graph and
/// re-records (the simulator's storm, runtime::rules::kStormAt), recompiles of one function, new FX
/// graphs after the first ones came back.
constexpr int kRepeatHazard = runtime::rules::kStormAt;

/// The run a builder fills: its summary in `sim`, and its steps and calls either kept there or, with a
/// sink, handed on as each call closes and dropped (so a log of any length is read in bounded memory).
/// Event indices and call indices count every step and call, streamed or kept.
class LogRunState {
public:
    runtime::Simulation sim; ///< the summary, and the steps not streamed yet (all of them without a sink)

    void streamTo(LogRunSink* sink) { m_sink = sink; }
    bool streaming() const { return m_sink != nullptr; }
    /// The first error the sink returned.
    const std::optional<Error>& error() const { return m_error; }

    int eventCount() const { return m_base + int(sim.events.size()); }
    int callCount() const { return m_calls; }
    /// Steps not streamed yet (the open call's, and run-level ones since the last call).
    bool hasOpenEvents() const { return !sim.events.empty(); }
    runtime::Event& lastEvent() { return sim.events.back(); }
    /// Step `index` (one not streamed yet).
    runtime::Event& event(int index) { return sim.events[size_t(index - m_base)]; }
    /// A new step, its index set.
    runtime::Event& newEvent();
    /// A line of a step: kept in the step (up to kMaxStepLines; then counted) and, without a sink, in
    /// sim.log too.
    void addLine(runtime::Event& event, const runtime::LogLine& line);
    /// A closed call (its index callCount()): with a sink, every step so far and the call go out.
    void addCall(const runtime::CallRecord& call);
    /// Every step so far goes out (with a sink): before a call opens, the run-level steps before it.
    void flushSteps();
    /// An assumption, once, up to kMaxNotes (the rest counted, said at finish()).
    void note(const std::string& text);
    /// The end: the steps left go out, the notes' count is said, callsSimulated set.
    void finish();

private:
    bool begin();
    LogRunSink* m_sink = nullptr;
    bool m_begun = false;
    int m_base = 0; ///< steps streamed
    int m_calls = 0;
    size_t m_droppedLines = 0, m_droppedNotes = 0;
    std::vector<std::string> m_notes; ///< every note kept (for once-only), bounded by kMaxNotes
    std::optional<Error> m_error;
};

/// Builds one process's run from its entries (each whole: a message continued over several lines
/// arrives joined by '\n').
/// Dynamo's "Recompiling function F in P:L" lines and their guard failures (`[__recompiles]`), as both
/// builders read them: a recompile_per_call hazard once one function has recompiled kRepeatHazard times,
/// naming its compile ids, calls and latest guard failure (docs/run-logs.md "A recompile per call").
class RecompileTracker {
public:
    /// `consequence`: what each recompile costs, in the runtime's words ("warms up and records again").
    explicit RecompileTracker(std::string consequence)
        : m_consequence(std::move(consequence))
    {
    }
    /// Reads one message (a recompile line or a guard failure under it; others are ignored). `call`: the
    /// call the recompile comes before. `hazard`: the run's recompile_per_call hazard when it has one
    /// already (its index, else SIZE_MAX; set when this raises it): a second one is never added.
    void add(const std::string& message, const std::string& compileId, int call, std::vector<runtime::Hazard>& hazards,
        size_t* hazard = nullptr);
    int count() const { return m_count; }
    /// Whether a function has recompiled often enough for the hazard.
    bool raised() const
    {
        for (const auto& [name, f] : m_functions)
            if (f.hazard != SIZE_MAX)
                return true;
        return false;
    }

private:
    struct Function {
        std::vector<int> calls;
        std::vector<std::string> ids;
        std::string failure; ///< the first guard failure of its latest recompile
        size_t hazard = SIZE_MAX;
    };
    std::string m_consequence;
    std::map<std::string, Function> m_functions; ///< by "forward in /app/model.py:68"
    std::string m_last;
    int m_count = 0;
};

class RunBuilder {
public:
    virtual ~RunBuilder() = default;
    virtual void add(const LogEntry& entry) = 0;
    /// A PyTorch TORCH_LOGS line of this process when the builder reads another runtime's (a TorchAir
    /// job's Dynamo lines): what it can use of it. Default: nothing.
    virtual void dynamo(const LogEntry& entry) { (void)entry; }
    /// Ends the run: the last call is closed, graphs, pools and hazards are summed up.
    virtual runtime::Simulation finish() = 0;
    /// Streams the run into `sink` (before the first add()).
    void streamTo(LogRunSink* sink) { m_run.streamTo(sink); }
    const std::optional<Error>& error() const { return m_run.error(); }
    /// Steps read so far, streamed or kept.
    int eventsRead() const { return m_run.eventCount(); }

protected:
    LogRunState m_run;
};

/// TorchAir's / npugraph_ex's logger (torchair_log.cpp). `path` names the log in the run's origin.
std::unique_ptr<RunBuilder> makeTorchairBuilder(const std::string& path);

/// PyTorch's TORCH_LOGS lines of a CUDA Graph Trees run (pytorch_log.cpp).
std::unique_ptr<RunBuilder> makePyTorchBuilder(const std::string& path);

} // namespace engine::ingest::detail
