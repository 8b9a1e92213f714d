// Drawing a laid-out graph view as SVG (graph_svg.h), in the scene's colours and shapes.
#include "gui/graph/graph_svg.h"

#include "engine/report/report_html.h"
#include "gui/graph/graph_palette.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace gui::graph {

using engine::report::htmlEscape; // XML escaping is HTML's (& < > " ')
using engine::view::NodeRole;
using engine::view::ViewItem;

namespace {

/// A number for an attribute: one decimal, no trailing ".0".
std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    std::string s = buf;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
        s.resize(s.size() - 2);
    return s == "-0" ? "0" : s;
}

/// The code points of `text` as byte ranges (a malformed byte counts as one).
std::vector<std::pair<size_t, size_t>> codePoints(const std::string& text)
{
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
        n = std::min(n, text.size() - i);
        out.emplace_back(i, n);
        i += n;
    }
    return out;
}

struct Legend {
    std::string svg;
    double width = 0, height = 0;
};

/// A row of swatches under the drawing: the roles its nodes have, folded groups, rewritten nodes.
Legend legend(const engine::view::ViewGraph& view, double y)
{
    std::set<NodeRole> roles;
    bool groups = false, rewritten = false;
    for (const ViewItem& it : view.items) {
        if (it.kind == ViewItem::Kind::Group)
            groups = true;
        else
            roles.insert(it.role);
        rewritten |= it.rewritten;
    }
    struct Entry {
        std::string label, fill, stroke;
    };
    std::vector<Entry> entries;
    for (NodeRole r : kLegendRoles)
        if (roles.count(r))
            entries.push_back({ roleText(r), roleRgb(r).hex(), palette::kNodeBorder.hex() });
    if (groups)
        entries.push_back({ "folded group", palette::kGroupFill.hex(), palette::kGroupBorder.hex() });
    if (rewritten)
        entries.push_back({ "rewritten by a pass", "#ffffff", palette::kRewritten.hex() });
    Legend out;
    double x = 0;
    for (const Entry& e : entries) {
        out.svg += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"14\" height=\"10\" rx=\"2\" fill=\""
            + e.fill + "\" stroke=\"" + e.stroke + "\"/><text x=\"" + num(x + 19) + "\" y=\"" + num(y + 9)
            + "\" font-size=\"10\" fill=\"" + palette::kDetail.hex() + "\">" + htmlEscape(e.label) + "</text>\n";
        x += 19 + 6.0 * double(e.label.size()) + 16;
    }
    out.width = x;
    out.height = entries.empty() ? 0 : 22;
    return out;
}

void drawItem(std::string& s, const ViewItem& item, size_t index, const ItemBox& box, const LayoutOptions& options)
{
    const bool group = item.kind == ViewItem::Kind::Group;
    const double w = box.width, h = box.height, x0 = box.x - w / 2, y0 = box.y - h / 2;
    const double radius = shape::kCornerRadius;
    std::string detail = item.detail;
    if (group && detail.empty())
        detail = std::to_string(item.members) + " nodes";
    s += "<g data-kind=\"" + std::string(group ? "group" : "node") + "\" data-item=\"" + std::to_string(index)
        + "\">\n<title>" + htmlEscape(item.label + "\n" + detail + (item.rewritten ? "\nrewritten by a pass" : ""))
        + "</title>\n";
    const auto rect = [&](double x, double y, const std::string& fill, const std::string& stroke, double width) {
        s += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) + "\" rx=\""
            + num(radius) + "\" fill=\"" + fill + "\" stroke=\"" + stroke + "\" stroke-width=\"" + num(width)
            + "\"/>\n";
    };
    const Rgb fill = group ? palette::kGroupFill : roleRgb(item.role);
    if (group) // an offset sheet behind: "more inside"
        rect(x0 + shape::kSheetOffset, y0 + shape::kSheetOffset, fill.darker(palette::kGroupSheetDarker).hex(),
            palette::kGroupSheetBorder.hex(), 1);
    const Rgb border = item.rewritten ? palette::kRewritten : group ? palette::kGroupBorder : palette::kNodeBorder;
    rect(x0, y0, fill.hex(), border.hex(), item.rewritten ? 2 : group ? 1.6 : 1);

    double left = x0 + shape::kTextInset;
    if (group) { // the expand marker: a small boxed "+"
        const double m = shape::kMarkerSize, my = box.y - m / 2, stroke = 1.2;
        const std::string colour = palette::kGroupBorder.hex();
        s += "<rect x=\"" + num(left) + "\" y=\"" + num(my) + "\" width=\"" + num(m) + "\" height=\"" + num(m)
            + "\" fill=\"#ffffff\" stroke=\"" + colour + "\" stroke-width=\"" + num(stroke) + "\"/>\n<path d=\"M"
            + num(left + 3) + " " + num(box.y) + "H" + num(left + m - 3) + "M" + num(left + m / 2) + " " + num(my + 3)
            + "V" + num(my + m - 3) + "\" stroke=\"" + colour + "\" stroke-width=\"" + num(stroke) + "\"/>\n";
        left += shape::kMarkerSpace;
    }
    const double textWidth = x0 + w - shape::kTextInset - left, centre = left + textWidth / 2;
    const int labelChars = int(textWidth / options.charWidth), detailChars = int(textWidth / options.detailCharWidth);
    s += "<text x=\"" + num(centre) + "\" y=\"" + num(box.y - 3) + "\" text-anchor=\"middle\" font-size=\""
        + num(shape::kLabelPixels) + "\" font-weight=\"bold\" fill=\"" + palette::kText.hex() + "\">"
        + htmlEscape(elideMiddle(item.label, labelChars)) + "</text>\n";
    s += "<text x=\"" + num(centre) + "\" y=\"" + num(box.y + 10) + "\" text-anchor=\"middle\" font-size=\""
        + num(shape::kDetailPixels) + "\" fill=\"" + palette::kDetail.hex() + "\">"
        + htmlEscape(elideMiddle(detail, detailChars)) + "</text>\n";
    if (item.rewritten) { // the badge on the top-right corner
        const double cx = x0 + w - 1.5, cy = y0 + 0.5;
        s += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"7.5\" fill=\"" + palette::kRewritten.hex()
            + "\"/><text x=\"" + num(cx) + "\" y=\"" + num(cy + 3.5)
            + "\" text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\" fill=\"#ffffff\">R</text>\n";
    }
    s += "</g>\n";
}

void drawEdge(std::string& s, const EdgeRoute& route)
{
    if (route.points.size() < 2)
        return;
    const std::string colour = palette::kEdge.hex();
    const auto pt = [](const LayoutPoint& p) { return num(p.x) + " " + num(p.y); };
    std::string d = "M" + pt(route.points[0]);
    std::size_t i = 1;
    for (; i + 2 < route.points.size(); i += 3)
        d += " C" + pt(route.points[i]) + " " + pt(route.points[i + 1]) + " " + pt(route.points[i + 2]);
    for (; i < route.points.size(); ++i) // not a whole Bezier (a straight fallback line)
        d += " L" + pt(route.points[i]);
    s += "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"" + num(route.penWidth)
        + "\" stroke-linecap=\"round\"/>\n";
    // The arrowhead, as the scene's EdgeItem: from the route's end to Graphviz's tip, or a head of
    // its own length ending the route.
    LayoutPoint base = route.points.back(), tip = base;
    if (route.hasArrow) {
        tip = route.arrowTip;
    } else {
        const LayoutPoint prev = route.points[route.points.size() - 2];
        const double dx = base.x - prev.x, dy = base.y - prev.y, len = std::hypot(dx, dy);
        if (len > 0)
            base = { tip.x - dx / len * shape::kArrowLength, tip.y - dy / len * shape::kArrowLength };
    }
    const double dx = tip.x - base.x, dy = tip.y - base.y, len = std::hypot(dx, dy);
    if (len <= 0)
        return;
    const double nx = -dy / len, ny = dx / len, half = 3.5 + route.penWidth / 2;
    s += "<polygon points=\"" + pt(tip) + " " + pt({ base.x + nx * half, base.y + ny * half }) + " "
        + pt({ base.x - nx * half, base.y - ny * half }) + "\" fill=\"" + colour + "\"/>\n";
}

} // namespace

std::string elideMiddle(const std::string& text, int maxChars)
{
    const auto cps = codePoints(text);
    if (int(cps.size()) <= maxChars)
        return text;
    if (maxChars <= 1)
        return maxChars == 1 ? "…" : "";
    const size_t keep = size_t(maxChars - 1), head = (keep + 1) / 2, tail = keep - head;
    const size_t headEnd = head ? cps[head - 1].first + cps[head - 1].second : 0;
    const size_t tailStart = tail ? cps[cps.size() - tail].first : text.size();
    return text.substr(0, headEnd) + "…" + text.substr(tailStart);
}

std::string drawViewSvg(const engine::view::ViewGraph& view, const LayoutResult& layout, const LayoutOptions& options)
{
    const double margin = 12;
    const std::string open = "<svg xmlns=\"http://www.w3.org/2000/svg\" ";
    if (layout.items.size() != view.items.size() || layout.edges.size() != view.edges.size())
        return open
            + "width=\"240\" height=\"30\" viewBox=\"0 0 240 30\" font-family=\"sans-serif\"><text x=\"8\" "
              "y=\"19\" font-size=\"11\" fill=\"#616161\">(no layout for this view)</text></svg>";
    const Legend key = legend(view, layout.height + 2 * margin);
    const double width = std::max(layout.width, key.width) + 2 * margin;
    const double height = layout.height + 2 * margin + key.height + (key.height > 0 ? margin : 0);
    std::string s = open + "width=\"" + num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width)
        + " " + num(height) + "\" font-family=\"sans-serif\" role=\"img\" aria-label=\"graph drawing: "
        + std::to_string(view.items.size()) + " items, " + std::to_string(view.edges.size()) + " edges\">\n";
    s += "<rect width=\"" + num(width) + "\" height=\"" + num(height) + "\" fill=\"#ffffff\"/>\n";
    s += "<g transform=\"translate(" + num(margin) + " " + num(margin) + ")\">\n";
    for (const EdgeRoute& e : layout.edges) // under the boxes, as in the scene
        drawEdge(s, e);
    for (size_t i = 0; i < view.items.size(); ++i)
        drawItem(s, view.items[i], i, layout.items[i], options);
    s += "</g>\n<g transform=\"translate(" + num(margin) + " 0)\">\n" + key.svg + "</g>\n</svg>";
    return s;
}

FoldedGraph foldGraph(const engine::Graph& graph, const std::set<std::string>& rewritten)
{
    FoldedGraph out;
    out.grouping = engine::view::groupNodes(graph);
    out.view = engine::view::buildView(graph, out.grouping, {}, rewritten);
    return out;
}

} // namespace gui::graph
