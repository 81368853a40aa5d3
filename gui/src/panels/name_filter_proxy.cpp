#include "parity/gui/panels/name_filter_proxy.hpp"

#include "parity/gui/panels/item_roles.hpp"

namespace parity::gui {

NameFilterProxy::NameFilterProxy(ViewState& state, int name_column, QObject* parent)
    : QSortFilterProxyModel(parent) {
  setSortRole(kSortRole);
  setFilterKeyColumn(name_column);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  setFilterFixedString(state.name_filter());
  connect(&state, &ViewState::name_filter_changed, this,
          [this, &state] { setFilterFixedString(state.name_filter()); });
}

}  // namespace parity::gui
