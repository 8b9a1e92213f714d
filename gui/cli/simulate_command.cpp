#include "engine/report/simulation_report.h"
#include "engine/scenario/log_scenario.h"
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"
#include "storage/project_db.h"
#include "storage/resimulate.h"
#include "storage/simulate_source.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

namespace gui::cli {

int simulateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path;
    std::string outPath;
    std::string dbPath;
    std::vector<std::string> overrideTexts;
    bool json = false;
    engine::runtime::LogLevel level = engine::runtime::LogLevel::Info;
    engine::SymbolValues symbols;
    int calls = 2;
    std::vector<std::string> inputKinds;
    std::string callList;
    std::string graphs, run, savePath;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto next = [&](const char* what) -> const std::string* {
            if (i + 1 >= args.size()) {
                err << "simulate: " << a << " needs " << what << "\n";
                return nullptr;
            }
            return &args[++i];
        };
        if (a == "--json") {
            json = true;
        } else if (a == "--set") {
            const std::string* kv = next("NAME=VALUE");
            std::vector<std::pair<std::string, engine::PyValue>> parsed;
            if (!kv || !parseSetting(*kv, parsed, err, "simulate"))
                return 2;
            overrideTexts.push_back(*kv);
        } else if (a == "--symbols") {
            const std::string* v = next("NAME=N[,NAME=N...]");
            if (!v || !parseSymbols(*v, symbols, err, "simulate"))
                return 2;
        } else if (a == "--input-kind") {
            const std::string* v = next("SEL=KIND (names, #N, #N-M or *; parameter, buffer, static_address, user_input)");
            if (!v || !checkInputKind(*v, err, "simulate"))
                return 2;
            inputKinds.push_back(*v);
        } else if (a == "--calls") {
            const std::string* v = next("a number of calls");
            char* end = nullptr;
            calls = v ? int(std::strtol(v->c_str(), &end, 10)) : 0;
            if (!v || *end || calls < 1 || calls > 1000000) {
                err << "simulate: --calls takes a number from 1 to 1000000\n";
                return 2;
            }
        } else if (a == "--call-list") {
            const std::string* v = next("a JSON file of calls (docs/scenario-format.md, \"Call lists\")");
            if (!v)
                return 2;
            callList = *v;
        } else if (a == "--graphs" || a == "--run" || a == "--save-scenario") {
            const std::string* v
                = next(a == "--graphs" ? "the job's debug folder, generated module, cache file or FX graph"
                        : a == "--run" ? "a run of the log (rank N, pid N)"
                                       : "a file name");
            if (!v)
                return 2;
            (a == "--graphs" ? graphs : a == "--run" ? run : savePath) = *v;
        } else if (a == "--log-level") {
            const std::string* v = next("debug, info or warning");
            if (!v)
                return 2;
            if (*v == "debug")
                level = engine::runtime::LogLevel::Debug;
            else if (*v == "info")
                level = engine::runtime::LogLevel::Info;
            else if (*v == "warning")
                level = engine::runtime::LogLevel::Warning;
            else {
                err << "simulate: --log-level takes debug, info or warning, not '" << *v << "'\n";
                return 2;
            }
        } else if (a == "-o" || a == "--output") {
            const std::string* v = next("a file name");
            if (!v)
                return 2;
            outPath = *v;
        } else if (a == "--db") {
            const std::string* v = next("a project file");
            if (!v)
                return 2;
            dbPath = *v;
        } else if (!a.empty() && a[0] == '-') {
            err << "simulate: unknown option " << a << "\n";
            return 2;
        } else if (path.empty()) {
            path = a;
        } else {
            err << "simulate: one scenario at a time (got '" << path << "' and '" << a << "')\n";
            return 2;
        }
    }
    if (path.empty()) {
        err << "usage: aclgraph-inspector simulate SCENARIO|GRAPH [--set NAME=VALUE ...] [--symbols s0=4,...] "
               "[--input-kind SEL=KIND ...] [--calls N] [--call-list FILE] [--json] [--log-level debug|info|warning] "
               "[--db FILE] [-o FILE]\n"
               "       aclgraph-inspector simulate LOG --graphs SRC [--run LABEL] [--save-scenario FILE] [options "
               "above]\n";
        return 2;
    }
    // The project opens before simulating so that a bad file fails at once.
    std::optional<storage::Database> db;
    if (!dbPath.empty()) {
        auto opened = storage::openProject(dbPath);
        if (!opened) {
            err << "error: " << opened.error().toString() << "\n";
            return 1;
        }
        db = std::move(opened.value());
    }
    if (graphs.empty() && (!run.empty() || !savePath.empty())) {
        err << "simulate: --run and --save-scenario go with --graphs (simulate LOG --graphs SRC)\n";
        return 2;
    }
    std::string scenarioPath = path;
    if (!graphs.empty() && (db || !savePath.empty())) {
        // The project simulates the run again (the Config form's what-if) from a scenario file that names
        // the log and the graphs.
        if (savePath.empty())
            savePath = dbPath + "." + std::filesystem::path(path).filename().string() + ".scenario.json";
        engine::scenario::LogSource source { std::filesystem::absolute(path).lexically_normal().string(),
            std::filesystem::absolute(graphs).lexically_normal().string(), run };
        std::ofstream file(savePath, std::ios::binary | std::ios::trunc);
        file << engine::scenario::logScenarioFileText(
            source, std::filesystem::path(path).filename().string() + " as a scenario");
        file.close();
        if (!file) {
            err << "error: " << savePath << ": cannot write the run's scenario\n";
            return 1;
        }
        err << "wrote the run's scenario to " << savePath << "\n";
        scenarioPath = savePath;
        graphs.clear();
        run.clear();
    }
    storage::SimulateFileRequest request;
    request.path = scenarioPath;
    request.graphs = graphs;
    request.run = run;
    request.overrides = overrideTexts;
    request.symbols = symbols;
    request.calls = calls;
    request.inputKinds = inputKinds;
    request.callList = callList;
    request.recordMemory = db.has_value();
    auto simulated = storage::simulateFile(request);
    if (!simulated) {
        err << "error: " << simulated.error().toString() << "\n";
        return 1;
    }
    for (const std::string& d : simulated->diagnostics)
        err << d << "\n";
    const engine::runtime::Simulation& sim = simulated->sim;
    const std::string text
        = json ? engine::report::simulationJson(sim) + "\n" : engine::report::simulationText(sim, level);
    if (int rc = writeResult(text, outPath, out, err); rc || !db)
        return rc;
    auto id = storage::storeSimulation(*db, scenarioPath, sim, *simulated->timeline, overrideTexts);
    if (!id) {
        err << "error: " << id.error().toString() << "\n";
        return 1;
    }
    err << "stored run " << *id << " in " << db->path() << "\n";
    return 0;
}

} // namespace gui::cli
