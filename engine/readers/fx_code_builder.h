#pragma once
/// Builds one Graph from the `forward` of a class in FX readable code (internal to readFxCode): the
/// signature's parameters, then one statement at a time. A statement it cannot read is a warning
/// and is skipped; one that would leave the graph inconsistent (a name used but never defined, a
/// name defined twice) makes error() non-empty, after which the builder ignores further input.
#include "engine/readers/fx_reader_internal.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace engine::readers::detail {

/// An annotation as written: a string literal (`"f32[4]"`, text decoded) or other source text
/// (`torch.Tensor`, or PyTorch 2.0's unquoted `f32[4]`).
struct AnnotationSource {
    bool present = false;
    bool isString = false;
    std::string text;
    /// When set, the text is this string literal's decoded value instead of `text`: a token of the
    /// line being read, so only while that line is read (keep() copies it into `text`).
    const std::string* literal = nullptr;
    size_t offset = 0;

    const std::string& str() const { return literal ? *literal : text; }
    void keep()
    {
        if (literal)
            text = *literal;
        literal = nullptr;
    }
};

struct Param {
    std::string name;
    size_t offset = 0;
    AnnotationSource annotation;
    /// The `# PlainAOTInput(idx=0)` comment after it, if any: a token's text, valid while the header
    /// line is read.
    std::string_view descriptor;
};

/// A long text shortened for a message.
inline std::string shortText(const std::string& s)
{
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

/// Names -> node indices, without an allocation per name (the keys are short strings kept in the
/// slots of one open-addressing table). Names are never removed one by one: retain() rebuilds.
class NameTable {
public:
    void reserve(size_t count);
    size_t size() const { return m_size; }
    int find(std::string_view name) const; ///< -1 if absent
    bool count(std::string_view name) const { return find(name) >= 0; }
    bool insert(std::string_view name, int index); ///< false (and no change) if the name is present
    /// Keeps the names whose index `newIndex` maps to >= 0, with that index.
    void retain(const std::vector<int>& newIndex);

private:
    struct Slot {
        std::string name;
        size_t hash = 0;
        int index = -1; ///< -1: empty
    };
    void grow();
    size_t m_size = 0;
    std::vector<Slot> m_slots; ///< a power of two of them, at most three quarters full
};

/// parseAnnotation's answer for one annotation text. It is a pure function of the text, so a read
/// computes it once per distinct text (a graph repeats a few dozen texts thousands of times) and
/// shares the parsed sizes among the nodes.
struct ParsedAnnotation {
    Result<Annotation> result;
    std::vector<std::string> warnings;
};
using AnnotationCache = std::unordered_map<std::string, ParsedAnnotation>;

class ForwardBuilder {
public:
    /// `annotations` is the read's cache, shared by the builders of one text.
    ForwardBuilder(std::string_view text, DiagnosticSink& sink, std::string graphId, AnnotationCache& annotations);

    /// About how many nodes the graph will have (a bound, e.g. the lines left in the text): the node
    /// list is allocated once instead of growing; finish() gives back what a smaller graph leaves.
    void expectNodes(size_t count);
    void addParam(const Param& p, const LogicalLine& line);
    void statement(const LogicalLine& line);
    void comment(const LogicalLine& line);
    void blank();
    const std::optional<Error>& error() const { return m_error; }
    /// Completes the graph: output node, getitem synthesis, finalize().
    Result<Graph> finish();

private:
    struct Pending {
        std::string target; ///< "operator.iadd", "operator.setitem"
        std::vector<Arg> args;
        std::string object; ///< the name the printer assigns from next (`x_1 = x`)
    };
    struct Target {
        std::string name;
        size_t offset = 0;
        AnnotationSource annotation;
    };

    Position at(size_t offset) const;
    void warn(size_t offset, const std::string& message);
    void fail(size_t offset, const std::string& message);
    void skipLine(size_t offset, const std::string& message);

    bool part(size_t begin, size_t end, size_t index, std::optional<Pending>& pending);
    bool assignment(
        size_t begin, size_t end, const std::vector<size_t>& equals, size_t index, std::optional<Pending>& pending);
    bool parseTarget(size_t begin, size_t end, Target& out);
    bool nodeFromValue(const Target& target, const Expr& value);
    bool callNode(Node& n, const Expr& value);
    bool returnStatement(size_t begin, size_t end);
    bool pytreeFlatten(const Expr& targets, const Expr& value);
    bool convertArgs(const std::vector<const Expr*>& exprs, std::vector<Arg>& out);
    bool convert(const Expr& e, Arg& out);

    bool define(Node n, size_t offset, bool annotated);
    void addPlaceholder(
        const std::string& name, size_t offset, const AnnotationSource& annotation, std::string_view descriptor);
    void removePlaceholders(const std::set<std::string>& names);
    bool applyAnnotation(Node& n, const AnnotationSource& annotation);
    bool isNode(std::string_view name) const { return m_names.count(name); }
    const std::vector<Token>& tokens() const { return *m_tokens; }
    std::string undefinedMessage(const std::string& name) const;

    std::string_view m_text;
    DiagnosticSink& m_sink;
    AnnotationCache& m_annotations;
    Graph m_graph;
    NameTable m_names; ///< node names and placeholder aliases -> index
    std::vector<bool> m_annotated; ///< per node: the statement printed an annotation
    std::vector<int> m_nodeLines; ///< per node: the line of its statement (for the graph's own checks)
    std::map<std::string, int> m_skipped; ///< names of statements that could not be read -> line
    std::map<std::string, std::pair<AnnotationSource, std::string>> m_pendingAnnotations; ///< pytree
    std::string m_provenance;
    std::string m_boxedSource; ///< `args_list` of `args_iter = iter(args_list)`
    bool m_boxed = false;
    bool m_returned = false;
    bool m_pass = false;
    bool m_warnedAfterReturn = false;
    int m_lastProblemLine = 0;
    size_t m_sliceUses = 0; ///< arguments that use nodes only inside slices (one warning in finish())
    Position m_firstSliceUse;
    std::string m_firstSliceUseName;
    Position m_lastPosition;
    std::optional<Error> m_error;

    // The statement being read.
    const LogicalLine* m_line = nullptr;
    const std::vector<Token>* m_tokens = nullptr; ///< its tokens without comments: [0, m_tokenCount)
    size_t m_tokenCount = 0;
    std::vector<Token> m_filtered; ///< the copy m_tokens points to when a comment is not the last token
    std::string m_lineComment; ///< its trailing comment, if any
    int m_lineNode = -1; ///< node the statement defined (for the "= None" tail)
    // Scratch space kept between statements (its capacity, that is).
    std::vector<std::pair<size_t, size_t>> m_parts; ///< the statement's `;`-separated token ranges
    std::vector<size_t> m_equals; ///< top-level `=` tokens of the part being read
    std::string m_dotted; ///< a callee's dotted name
    std::vector<const Expr*> m_positional; ///< a call's positional arguments
    ExprPool m_exprPool; ///< storage of the expression trees read so far
};

} // namespace engine::readers::detail
