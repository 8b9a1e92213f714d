#pragma once
/// The graph view's colours and role names, shared by the window's scene (graph_items.cpp, as
/// QColor) and the drawings in reports (graph_svg.cpp, as SVG colours). Plain C++: no Qt.
#include "engine/graph/graph_view.h"

#include <cstdio>
#include <string>

namespace gui::graph {

struct Rgb {
    int r = 0, g = 0, b = 0;
    std::string hex() const
    {
        char buf[8];
        std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r & 255, g & 255, b & 255);
        return buf;
    }
    /// As QColor::darker(factor): value divided by factor/100, hue and saturation kept.
    Rgb darker(int factor) const { return { r * 100 / factor, g * 100 / factor, b * 100 / factor }; }
};

/// Fill colour of a node by its role.
constexpr Rgb roleRgb(engine::view::NodeRole role)
{
    using engine::view::NodeRole;
    switch (role) {
    case NodeRole::Parameter:
        return { 200, 230, 201 }; // green
    case NodeRole::Static:
        return { 207, 216, 220 }; // blue grey
    case NodeRole::MutatedInput:
        return { 255, 204, 188 }; // salmon
    case NodeRole::UserInput:
        return { 187, 222, 251 }; // light blue
    case NodeRole::SymInt:
        return { 225, 190, 231 }; // lilac
    case NodeRole::Intermediate:
        return { 250, 250, 250 }; // near white
    case NodeRole::Output:
        return { 255, 241, 118 }; // yellow
    }
    return { 250, 250, 250 };
}

/// The legend's text for a role ("parameter", "mutated input", ...).
constexpr const char* roleText(engine::view::NodeRole role)
{
    using engine::view::NodeRole;
    switch (role) {
    case NodeRole::Parameter:
        return "parameter";
    case NodeRole::Static:
        return "static";
    case NodeRole::MutatedInput:
        return "mutated input";
    case NodeRole::UserInput:
        return "user input";
    case NodeRole::SymInt:
        return "sym int";
    case NodeRole::Intermediate:
        return "intermediate";
    case NodeRole::Output:
        return "output";
    }
    return "intermediate";
}

/// Every role, in the legend's order.
constexpr engine::view::NodeRole kLegendRoles[] = { engine::view::NodeRole::Parameter, engine::view::NodeRole::Static,
    engine::view::NodeRole::MutatedInput, engine::view::NodeRole::UserInput, engine::view::NodeRole::SymInt,
    engine::view::NodeRole::Intermediate, engine::view::NodeRole::Output };

namespace palette {
constexpr Rgb kSelected { 25, 118, 210 };
constexpr Rgb kHighlight { 213, 0, 249 };
constexpr Rgb kRewritten { 239, 108, 0 }; ///< border and badge of a node a pass rewrote
constexpr Rgb kEdge { 96, 125, 139 };
constexpr Rgb kText { 33, 33, 33 };
constexpr Rgb kDetail { 97, 97, 97 };
constexpr Rgb kNodeBorder { 117, 117, 117 };
constexpr Rgb kGroupFill { 232, 234, 246 };
constexpr Rgb kGroupBorder { 57, 73, 171 };
constexpr Rgb kGroupSheetBorder { 121, 134, 203 }; ///< the offset sheet behind a group
constexpr int kGroupSheetDarker = 108; ///< the sheet's fill: kGroupFill.darker(108)
} // namespace palette

/// Box geometry the scene and the drawings share (points).
namespace shape {
constexpr double kCornerRadius = 6;
constexpr double kSheetOffset = 4; ///< a group's sheet, down and right
constexpr double kTextInset = 8; ///< text and marker from the box's left and right edges
constexpr double kMarkerSize = 14; ///< a group's boxed "+"
constexpr double kMarkerSpace = 20; ///< text starts this far right of the marker's left edge
constexpr double kLabelPixels = 11; ///< name line, bold
constexpr double kDetailPixels = 10; ///< detail line
constexpr double kArrowLength = 9; ///< an arrowhead drawn when Graphviz gave none
} // namespace shape

} // namespace gui::graph
