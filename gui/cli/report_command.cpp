// `report INPUT... -o FILE`: a report of scenarios and graphs (simulated) and of the runs of
// projects, as JSON, Markdown, HTML or PDF (gui/report/report_builder.h, the same code as the
// window's File > Export Report). With --compare and exactly two runs, or --compare-set with one
// scenario, the report ends with the comparison of the two runs.
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"
#include "gui/report/report_builder.h"

#include <ostream>

namespace gui::cli {

int reportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    (void)out;
    report::ReportRequest request;
    std::string outPath;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if ((a == "-o" || a == "--title") && i + 1 < args.size())
            (a == "-o" ? outPath : request.title) = args[++i];
        else if (a == "--compare")
            request.compare = true;
        else if (a == "--compare-set" && i + 1 < args.size()) {
            if (!parseSetting(args[++i], request.compareSettings, err, "report"))
                return 2;
        } else if (!a.empty() && a[0] == '-') {
            err << "report: unknown option " << a << "\n";
            return 2;
        } else
            request.inputs.push_back(a);
    }
    if (request.inputs.empty() || outPath.empty()) {
        err << "usage: aclgraph-inspector report INPUT... -o FILE.json|FILE.md|FILE.html|FILE.pdf [--title TEXT]\n"
               "                                [--compare | --compare-set NAME=VALUE...]\n"
               "  INPUT: a scenario or FX graph file (simulated with its own config), a project (.aclgi: its runs),\n"
               "  a compile cache (.torchair_cache or compiled_module), a memory snapshot pickle or a run log\n"
               "  --compare: the two runs side by side; --compare-set: the one scenario simulated again with\n"
               "  these settings on top, and the two configs side by side\n";
        return 2;
    }
    if (!report::reportFormatOf(outPath)) {
        err << "report: " << outPath << ": write .json, .md, .html or .pdf\n";
        return 2;
    }
#ifdef ACLGI_VERSION
    request.generator = "aclgraph-inspector " ACLGI_VERSION;
#endif
    auto json = report::buildReportJson(request);
    if (!json) {
        const bool usage = json.error().code == engine::ErrorCode::InvalidArgument && json.error().context.empty();
        err << (usage ? "report: " : "error: ") << json.error().toString() << "\n";
        return usage ? 2 : 1;
    }
    auto written = report::writeReport(*json, outPath);
    if (!written) {
        err << "error: " << written.error().toString() << "\n";
        return 1;
    }
    return 0;
}

} // namespace gui::cli
