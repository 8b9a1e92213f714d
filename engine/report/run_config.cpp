#include "engine/report/run_config.h"

#include "engine/config/cuda_options.h"
#include "engine/report/simulation_report.h"

#include <nlohmann/json.hpp>

namespace engine::report {

namespace {

using nlohmann::json;

/// A JSON value of the "effective" object as Python prints it. Its only array is a pool handle,
/// which TorchAir takes as a tuple.
std::string pyRepr(const json& v)
{
    if (v.is_boolean())
        return v.get<bool>() ? "True" : "False";
    if (v.is_number_integer())
        return v.dump();
    if (v.is_number_float())
        return pyFloatRepr(v.get<double>());
    if (v.is_string())
        return pyStrRepr(v.get<std::string>());
    if (v.is_array()) {
        std::vector<PyValue> items;
        for (const json& item : v)
            items.push_back(item.is_number_integer() ? PyValue::integer(item.get<int64_t>()) : PyValue::none());
        return PyValue::tuple(std::move(items)).repr();
    }
    return "None";
}

/// torchair's options= mapper inverts bools and the integers 0 and 1 of an inverted name.
std::string inverted(const std::string& repr)
{
    if (repr == "True" || repr == "False")
        return repr == "True" ? "False" : "True";
    if (repr == "0" || repr == "1")
        return repr == "1" ? "0" : "1";
    return repr;
}

} // namespace

std::vector<RunOption> runOptions(config::Backend backend, const std::string& configJson)
{
    const json config = json::parse(configJson, nullptr, false);
    const json effective = config.is_object() ? config.value("effective", json::object()) : json::object();
    const json written = config.is_object() ? config.value("written", json::array()) : json::array();
    const bool torchair = backend == config::Backend::TorchAir;
    const auto& table = config::optionTable();
    std::vector<RunOption> out;
    for (size_t i = 0; i < table.size(); ++i) {
        const config::OptionSpec& spec = table[i];
        RunOption o;
        o.spec = i;
        o.name = torchair ? spec.torchairName : spec.npugraphExName;
        if (!o.name.empty()) {
            o.defaultValue = (torchair ? spec.torchairDefault : spec.npugraphExDefault).repr();
            o.value = o.defaultValue;
        }
        if (o.name.empty()) {
            out.push_back(std::move(o));
            continue;
        }
        if (spec.torchairName == "mode") {
            // The simulator models the aclgraph modes only: unless written, torchair's mode is
            // reduce-overhead (its default, max-autotune, would not capture at all).
            o.value = torchair ? "'reduce-overhead'" : "'npugraph_ex'";
        }
        if (effective.is_object() && effective.contains(o.name)) {
            o.value = pyRepr(effective[o.name]);
            o.set = true;
        } else if (written.is_array()) {
            for (const json& w : written) {
                const std::string name = w.is_object() ? w.value("name", std::string()) : std::string();
                const json value = w.is_object() ? w.value("value", json()) : json();
                if (!value.is_string() || name.empty())
                    continue;
                if (name == o.name) {
                    o.value = value.get<std::string>();
                    o.set = true;
                } else if (torchair && name == spec.npugraphExName) {
                    o.value = spec.inverted ? inverted(value.get<std::string>()) : value.get<std::string>();
                    o.set = true;
                }
            }
        }
        out.push_back(std::move(o));
    }
    return out;
}

std::vector<RunOption> cudaRunOptions(const std::string& configJson)
{
    const json config = json::parse(configJson, nullptr, false);
    const json effective = config.is_object() ? config.value("effective", json::object()) : json::object();
    const json written = config.is_object() ? config.value("written", json::array()) : json::array();
    const auto& table = config::cudaOptionTable();
    std::vector<RunOption> out;
    for (size_t i = 0; i < table.size(); ++i) {
        const config::CudaOptionSpec& spec = table[i];
        RunOption o;
        o.spec = i;
        o.cuda = true;
        o.name = spec.name;
        o.defaultValue = spec.defaultValue.repr();
        o.value = spec.name == "mode" ? "'reduce-overhead'" : o.defaultValue;
        if (effective.is_object() && effective.contains(spec.name)) {
            const json& v = effective[spec.name];
            if (v.is_array()) {
                // cudagraph_capture_sizes: a tuple of int tuples
                std::vector<PyValue> keys;
                for (const json& key : v) {
                    std::vector<PyValue> ints;
                    for (const json& n : key)
                        ints.push_back(PyValue::integer(n.get<int64_t>()));
                    keys.push_back(PyValue::tuple(std::move(ints)));
                }
                o.value = PyValue::tuple(std::move(keys)).repr();
            } else {
                o.value = pyRepr(v);
            }
            o.set = true;
        }
        if (written.is_array())
            for (const json& w : written) {
                const std::string name = w.is_object() ? w.value("name", std::string()) : std::string();
                const json value = w.is_object() ? w.value("value", json()) : json();
                if (value.is_string() && !name.empty() && config::findCudaOption(name) == &spec) {
                    if (!o.set)
                        o.value = value.get<std::string>();
                    o.set = true;
                }
            }
        out.push_back(std::move(o));
    }
    return out;
}

std::vector<RunOption> runOptions(const runtime::Simulation& sim, const std::string& configJson)
{
    return sim.cuda ? cudaRunOptions(configJson) : runOptions(sim.options.backend, configJson);
}

std::vector<std::pair<std::string, std::string>> runConfigPairs(
    const runtime::Simulation& sim, const std::string& configJson)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const RunOption& o : runOptions(sim, configJson))
        if (o.set && !(o.cuda && o.isDefault()))
            out.emplace_back(o.name, o.value);
    return out;
}

std::vector<std::pair<std::string, std::string>> runConfigPairs(config::Backend backend, const std::string& configJson)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const RunOption& o : runOptions(backend, configJson))
        if (o.set)
            out.emplace_back(o.name, o.value);
    return out;
}

std::vector<std::pair<std::string, std::string>> runConfigPairs(const config::Options& options)
{
    return runConfigPairs(options.backend, simulationConfigJson(options));
}

} // namespace engine::report
