#pragma once
/// Internal to engine/ingest's log reader (run_log.h): the builders that turn one process's entries
/// into its run. run_log.cpp owns the file, the lines, the processes and continuation lines;
/// torchair_log.cpp interprets TorchAir's messages; pytorch_log.cpp PyTorch's TORCH_LOGS messages.
#include "engine/ingest/run_log.h"

#include <memory>
#include <optional>

namespace engine::ingest::detail {

/// How often a thing repeats before the log's run calls it a hazard: recaptures of one FX graph (the
/// simulator's recapture storm), re-records, recompiles of one function, new FX graphs after the
/// first ones came back.
constexpr int kRepeatHazard = 3;

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
class RunBuilder {
public:
    virtual ~RunBuilder() = default;
    virtual void add(const LogEntry& entry) = 0;
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
