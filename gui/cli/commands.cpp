#include "gui/cli/commands.h"

#include <fstream>
#include <ostream>

namespace gui::cli {

namespace {

const char* kUsage
    = "usage: aclgraph-inspector [FILE...]            open the window (default: the bundled samples)\n"
      "       aclgraph-inspector simulate SCENARIO|GRAPH|compiled_module [--set NAME=VALUE ...] [--symbols s0=4,...] "
      "[--calls N] [--call-list FILE] [--json] [--log-level "
      "debug|info|warning] [--db FILE] [-o FILE]\n"
      "       aclgraph-inspector simulate LOG --graphs SRC [--run LABEL] [--save-scenario FILE] [simulate's options]   "
      "(the run a log tells)\n"
      "       aclgraph-inspector import PATH... --db FILE [--simulate] [--quiet]\n"
      "       aclgraph-inspector runs --db FILE [--json] [--run ID] [--check]\n"
      "       aclgraph-inspector report SCENARIO|GRAPH|PROJECT.aclgi|CACHE|SNAPSHOT|LOG... -o "
      "FILE.json|FILE.md|FILE.html|FILE.pdf [--compare | --compare-set NAME=VALUE...] [--title TEXT]\n"
      "       aclgraph-inspector passes SCENARIO|GRAPH [--graph ID] [--set NAME=VALUE ...] [--symbols "
      "s0=4,...] [--json] [--verbose] [--emit-code OUT] [--emit-module OUT]\n"
      "       aclgraph-inspector stages DEBUG_DIR [--model NAME] [--diff A B] [--json] [-o FILE]\n"
      "       aclgraph-inspector cache ls PATH | show FILE | readable FILE [-o OUT] | key [--set NAME=VALUE ...] "
      "[--repr FILE] [--against PATH]   (cache --help)\n"
      "       aclgraph-inspector snapshot FILE [--trace TRACE] [--at ENTRY|peak] [--json] [--device N] [-o FILE]   "
      "(a PyTorch/torch_npu memory snapshot)\n"
      "       aclgraph-inspector generate decoder [--layers N] [--batches 1,2,4] [--decode-calls N] "
      "[--config JSON] [-o FILE]\n"
      "       aclgraph-inspector --help | --version\n";

} // namespace

int writeResult(const std::string& text, const std::string& outPath, std::ostream& out, std::ostream& err)
{
    if (outPath.empty()) {
        out << text;
        return 0;
    }
    std::ofstream f(outPath, std::ios::binary);
    if (!(f << text)) {
        err << "error: " << outPath << ": cannot write\n";
        return 1;
    }
    return 0;
}

int runSubcommand(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    if (argc < 2)
        return -1;
    const std::string cmd = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    if (cmd == "simulate")
        return simulateCommand(args, out, err);
    if (cmd == "passes")
        return passesCommand(args, out, err);
    if (cmd == "stages")
        return stagesCommand(args, out, err);
    if (cmd == "cache")
        return cacheCommand(args, out, err);
    if (cmd == "generate")
        return generateCommand(args, out, err);
    if (cmd == "import")
        return importCommand(args, out, err);
    if (cmd == "runs")
        return runsCommand(args, out, err);
    if (cmd == "report")
        return reportCommand(args, out, err);
    if (cmd == "snapshot")
        return snapshotCommand(args, out, err);
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        out << kUsage;
        return 0;
    }
    if (cmd == "--version") {
#ifdef ACLGI_VERSION
        out << "aclgraph-inspector " << ACLGI_VERSION << "\n";
#else
        out << "aclgraph-inspector\n";
#endif
        return 0;
    }
    if (!cmd.empty() && cmd[0] == '-' && cmd.rfind("-platform", 0) != 0 && cmd.rfind("--style", 0) != 0) {
        err << "aclgraph-inspector: unknown option " << cmd << "\n" << kUsage;
        return 2;
    }
    return -1; // files to open in the window
}

} // namespace gui::cli
