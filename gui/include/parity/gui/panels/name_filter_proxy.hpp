// NameFilterProxy: a sort and filter proxy that obeys ViewState's name
// filter (a case-insensitive substring of the name column) and sorts by
// kSortRole, so numbers order as numbers.
#pragma once

#include <QSortFilterProxyModel>

#include "parity/gui/view_state.hpp"

namespace parity::gui {

class NameFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  NameFilterProxy(ViewState& state, int name_column, QObject* parent = nullptr);
};

}  // namespace parity::gui
