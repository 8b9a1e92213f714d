#include "engine/scenario/decoder_generator.h"
#include "gui/cli/commands.h"

#include <cstdlib>
#include <ostream>

namespace gui::cli {

namespace {

bool parseInt(const std::string& s, int& out)
{
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end || v < 0 || v > 1000000)
        return false;
    out = int(v);
    return true;
}

} // namespace

int generateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const char* usage
        = "usage: aclgraph-inspector generate decoder [--layers N] [--hidden N] [--intermediate N] "
          "[--vocab N] [--max-batch N] [--max-seq N] [--prompt-len N] [--static-decode BATCH] "
          "[--batches B1,B2,...] [--decode-calls N] [--runtime torchair|cuda_graph_trees] [--config JSON] "
          "[-o FILE]\n";
    if (args.empty() || args[0] != "decoder") {
        err << usage;
        return 2;
    }
    engine::scenario::DecoderSpec spec;
    std::vector<int> batches { 1 };
    int decodeCalls = 8;
    std::string config = "{}";
    std::string outPath;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (i + 1 >= args.size()) {
            err << "generate: " << a << " needs a value\n" << usage;
            return 2;
        }
        const std::string& v = args[++i];
        int n = 0;
        auto number = [&](int& field) {
            if (!parseInt(v, n)) {
                err << "generate: " << a << " takes a whole number, not '" << v << "'\n";
                return false;
            }
            field = n;
            return true;
        };
        bool ok = true;
        if (a == "--layers")
            ok = number(spec.layers);
        else if (a == "--hidden")
            ok = number(spec.hidden);
        else if (a == "--intermediate")
            ok = number(spec.intermediate);
        else if (a == "--vocab")
            ok = number(spec.vocab);
        else if (a == "--max-batch")
            ok = number(spec.maxBatch);
        else if (a == "--max-seq")
            ok = number(spec.maxSeq);
        else if (a == "--prompt-len")
            ok = number(spec.promptLen);
        else if (a == "--decode-calls")
            ok = number(decodeCalls);
        else if (a == "--static-decode") {
            ok = number(spec.staticBatch);
            spec.dynamicDecode = false;
        } else if (a == "--batches") {
            batches.clear();
            size_t start = 0;
            while (ok && start <= v.size()) {
                const size_t comma = v.find(',', start);
                const std::string item
                    = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                ok = parseInt(item, n) && n > 0;
                if (ok)
                    batches.push_back(n);
                else
                    err << "generate: --batches takes positive numbers separated by commas, not '" << v << "'\n";
                if (comma == std::string::npos)
                    break;
                start = comma + 1;
            }
        } else if (a == "--runtime") {
            ok = v == "torchair" || v == "cuda_graph_trees";
            spec.cuda = v == "cuda_graph_trees";
            if (!ok)
                err << "generate: --runtime takes torchair or cuda_graph_trees, not '" << v << "'\n";
        } else if (a == "--config")
            config = v;
        else if (a == "-o" || a == "--output")
            outPath = v;
        else {
            err << "generate: unknown option " << a << "\n" << usage;
            return 2;
        }
        if (!ok)
            return 2;
    }
    std::string text;
    try {
        text = engine::scenario::decoderScenarioJson(spec, config, batches, decodeCalls, "decoder", {}) + "\n";
    } catch (const std::exception& e) {
        err << "generate: --config is not a JSON object: " << e.what() << "\n";
        return 2;
    }
    return writeResult(text, outPath, out, err);
}

} // namespace gui::cli
