// The memory plan of Inductor's output code: summary and graph (inductor_plan.h).
#include "engine/readers/inductor_plan.h"

#include "engine/readers/inductor_text.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace engine::readers::inductor::detail {

using namespace text;

std::vector<const PlanStep*> executionOrder(const OutputCode& code)
{
    std::vector<const PlanStep*> out;
    const std::string entry = !code.entry.empty() ? code.entry
        : std::find(code.functions.begin(), code.functions.end(), "call") != code.functions.end()
        ? std::string("call")
        : std::string();
    if (entry.empty()) {
        for (const PlanStep& s : code.plan)
            out.push_back(&s);
        return out;
    }
    // Each partition's steps, once: Inductor calls every partition once, and inlining a partition at
    // each of many calls would make a hostile file quadratic.
    std::map<std::string, std::vector<const PlanStep*>> byFunction;
    for (const PlanStep& s : code.plan)
        if (s.function != entry && s.kind != PlanStep::Kind::Return)
            byFunction[s.function].push_back(&s);
    for (const PlanStep& s : code.plan) {
        if (s.function != entry)
            continue;
        if (s.kind == PlanStep::Kind::PartitionCall) {
            auto it = byFunction.find(s.name);
            if (it != byFunction.end()) {
                out.insert(out.end(), it->second.begin(), it->second.end());
                byFunction.erase(it); // a second call adds nothing
            }
        }
        out.push_back(&s);
    }
    return out;
}

namespace {

std::set<std::string> inputNamesOf(const OutputCode& code)
{
    std::set<std::string> names;
    for (const Input& in : code.inputs)
        names.insert(in.name);
    return names;
}

} // namespace

void summarizePlan(OutputCode& code)
{
    const std::set<std::string> inputNames = inputNamesOf(code);
    Summary& s = code.summary;
    s.kernels = code.kernels.size();
    struct Storage {
        uint64_t bytes = 0;
        int names = 0;
    };
    std::vector<Storage> storages;
    std::map<std::string, size_t> storageOf;
    uint64_t live = 0;
    for (const PlanStep* p : executionOrder(code)) {
        switch (p->kind) {
        case PlanStep::Kind::Alloc: {
            ++s.allocations;
            const uint64_t b = p->bytes.value_or(0);
            if (!p->bytes)
                s.bytesExact = false;
            s.allocatedBytes += b;
            if (auto it = storageOf.find(p->name); it != storageOf.end() && --storages[it->second].names == 0)
                live -= storages[it->second].bytes;
            storageOf[p->name] = storages.size();
            storages.push_back({ b, 1 });
            live += b;
            if (live > s.peakBytes) {
                s.peakBytes = live;
                s.peakLine = p->line;
            }
            break;
        }
        case PlanStep::Kind::Reuse:
        case PlanStep::Kind::View: {
            if (p->kind == PlanStep::Kind::Reuse)
                ++s.reuses;
            auto src = storageOf.find(p->source);
            if (src == storageOf.end())
                break; // a view of an input
            const size_t id = src->second;
            if (p->kind == PlanStep::Kind::Reuse)
                storageOf.erase(src);
            else
                ++storages[id].names;
            if (auto old = storageOf.find(p->name);
                old != storageOf.end() && old->second != id && --storages[old->second].names == 0)
                live -= storages[old->second].bytes;
            storageOf[p->name] = id;
            break;
        }
        case PlanStep::Kind::Free: {
            auto it = storageOf.find(p->name);
            if (it == storageOf.end())
                break; // an input
            ++s.frees;
            if (--storages[it->second].names == 0)
                live -= storages[it->second].bytes;
            storageOf.erase(it);
            break;
        }
        case PlanStep::Kind::Launch:
            ++s.launches;
            break;
        case PlanStep::Kind::Extern:
            ++s.externCalls;
            for (const std::string& w : p->writes)
                if (!storageOf.count(w) && !inputNames.count(w)) {
                    // The callee allocated its result: its size is not in the file.
                    storageOf[w] = storages.size();
                    storages.push_back({ 0, 1 });
                    s.bytesExact = false;
                }
            break;
        case PlanStep::Kind::PartitionCall:
            break;
        case PlanStep::Kind::Return:
            if (p->function == code.entry || code.entry.empty())
                s.outputs = p->uses;
            break;
        }
    }
}

std::optional<std::string> buildPlanGraph(OutputCode& code)
{
    const std::set<std::string> inputNames = inputNamesOf(code);
    const auto order = executionOrder(code);
    if (order.empty() && code.inputs.empty())
        return std::nullopt;
    Graph g;
    g.id = code.aotIds.empty() ? std::string("output_code") : code.aotIds.front();
    std::set<std::string> used;
    std::map<std::string, std::string> owner; // buffer/input name -> node owning its storage
    auto unique = [&](std::string base) {
        if (!isIdentifier(base))
            base = "node";
        std::string n = base;
        for (int i = 1; used.count(n); ++i)
            n = base + "_" + std::to_string(i);
        used.insert(n);
        return n;
    };
    for (const Input& in : code.inputs) {
        Node n;
        n.op = NodeOp::Placeholder;
        n.name = unique(in.name);
        if (in.symInt) {
            n.inputKind = InputKind::SymInt;
            if (auto e = SymExpr::parse(in.name))
                n.symbol = e.value();
        } else {
            n.outputs.push_back(in.meta);
        }
        owner[in.name] = n.name;
        g.nodes.push_back(std::move(n));
    }
    std::set<std::string> mutated;
    auto refsOf = [&](const std::vector<std::string>& names) {
        std::vector<Arg> refs;
        std::set<std::string> seen;
        for (const std::string& u : names) {
            auto it = owner.find(u);
            if (it == owner.end() || !seen.insert(it->second).second)
                continue;
            refs.push_back(Arg::ref(it->second));
        }
        return refs;
    };
    std::vector<std::string> outputs;
    for (const PlanStep* p : order) {
        switch (p->kind) {
        case PlanStep::Kind::Alloc: {
            Node n;
            n.name = unique(p->name);
            n.target = "inductor.alloc";
            n.outputs.push_back(*p->meta);
            n.provenance = code.path + ":" + std::to_string(p->line);
            owner[p->name] = n.name;
            g.nodes.push_back(std::move(n));
            break;
        }
        case PlanStep::Kind::Reuse:
        case PlanStep::Kind::View:
            if (auto it = owner.find(p->source); it != owner.end())
                owner[p->name] = it->second;
            break;
        case PlanStep::Kind::Launch:
        case PlanStep::Kind::Extern: {
            Node n;
            const bool launch = p->kind == PlanStep::Kind::Launch;
            n.target = launch ? "triton:" + p->name : p->name;
            std::string base = p->name;
            std::replace(base.begin(), base.end(), '.', '_');
            n.name = unique(base);
            n.args.push_back(Arg::list(refsOf(p->uses)));
            n.provenance = code.path + ":" + std::to_string(p->line);
            for (const std::string& w : p->writes) {
                if (inputNames.count(w))
                    mutated.insert(w);
                else if (!owner.count(w))
                    owner[w] = n.name; // a result the callee allocates: no metadata in the file
            }
            g.nodes.push_back(std::move(n));
            break;
        }
        case PlanStep::Kind::Return:
            if (p->function == code.entry || code.entry.empty())
                outputs = p->uses;
            break;
        case PlanStep::Kind::Free:
        case PlanStep::Kind::PartitionCall:
            break;
        }
    }
    Node out;
    out.op = NodeOp::Output;
    out.name = unique("output");
    out.args.push_back(Arg::list(refsOf(outputs)));
    g.nodes.push_back(std::move(out));
    std::vector<std::string> mutatedList;
    for (const Input& in : code.inputs)
        if (mutated.count(in.name))
            mutatedList.push_back(in.name);
    g.recordedMutatedInputs = std::move(mutatedList);
    auto ok = g.finalize();
    if (!ok)
        return ok.error().toString();
    code.graph = std::move(g);
    return std::nullopt;
}

} // namespace engine::readers::inductor::detail
