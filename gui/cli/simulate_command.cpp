#include "engine/report/simulation_report.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"
#include "gui/cli/commands.h"

#include <ostream>

namespace gui::cli {

int simulateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path;
    std::string outPath;
    bool json = false;
    engine::runtime::LogLevel level = engine::runtime::LogLevel::Info;
    engine::runtime::SimulationOptions options;
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
            if (!kv)
                return 2;
            const auto eq = kv->find('=');
            if (eq == std::string::npos || eq == 0) {
                err << "simulate: --set expects NAME=VALUE, got '" << *kv << "'\n";
                return 2;
            }
            auto value = engine::parsePyLiteral(kv->substr(eq + 1));
            if (!value) {
                err << "simulate: --set " << *kv << ": " << value.error().toString() << "\n";
                return 2;
            }
            options.overrides.emplace_back(kv->substr(0, eq), value.value());
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
        err << "usage: aclgraph-inspector simulate SCENARIO [--set NAME=VALUE ...] [--json] [--log-level "
               "debug|info|warning] [-o FILE]\n";
        return 2;
    }
    auto scenario = engine::scenario::readScenarioFile(path);
    if (!scenario) {
        err << "error: " << scenario.error().toString() << "\n";
        return 1;
    }
    auto sim = engine::runtime::simulate(scenario.value(), options);
    if (!sim) {
        err << "error: " << sim.error().toString() << "\n";
        return 1;
    }
    const std::string text = json ? engine::report::simulationJson(sim.value()) + "\n"
                                  : engine::report::simulationText(sim.value(), level);
    return writeResult(text, outPath, out, err);
}

} // namespace gui::cli
