# Resolves PARITY_WITH_CUDA, PARITY_WITH_GUI and PARITY_WITH_MPI into
# PARITY_WITH_*_ENABLED and records the reason for the configure summary.

# CUDA: the toolkit (nvcc) is enough to build; a GPU is only needed to run.
if(NOT PARITY_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
endif()
if(CMAKE_CUDA_COMPILER)
  parity_resolve_feature(PARITY_WITH_CUDA TRUE "nvcc found at ${CMAKE_CUDA_COMPILER}")
else()
  parity_resolve_feature(PARITY_WITH_CUDA FALSE "no CUDA compiler (nvcc) found")
endif()
if(PARITY_WITH_CUDA_ENABLED)
  # sm_90 (H100/H200) machine code plus compute_90 PTX for newer GPUs to JIT.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual" CACHE STRING "CUDA architectures")
  endif()
  # CMake 3.25 knows no C++20 dialect flag for nvcc; device code is C++17.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  string(REPLACE ";" " " architectures "${CMAKE_CUDA_ARCHITECTURES}")
  set_property(GLOBAL APPEND PROPERTY PARITY_SUMMARY
    "  CUDA ${CUDAToolkit_VERSION}, architectures ${architectures}")
endif()

if(NOT PARITY_WITH_GUI STREQUAL "OFF")
  find_package(Qt6 QUIET COMPONENTS Widgets Charts Concurrent Test)
endif()
if(Qt6Widgets_FOUND AND Qt6Charts_FOUND AND Qt6Concurrent_FOUND AND Qt6Test_FOUND)
  parity_resolve_feature(PARITY_WITH_GUI TRUE "Qt6 Widgets and Charts ${Qt6Widgets_VERSION} found")
else()
  parity_resolve_feature(PARITY_WITH_GUI FALSE
    "Qt6 Widgets, Charts, Concurrent or Test not found (Debian: qt6-base-dev qt6-charts-dev)")
endif()

if(NOT PARITY_WITH_MPI STREQUAL "OFF")
  find_package(MPI QUIET COMPONENTS CXX)
endif()
if(MPI_CXX_FOUND)
  parity_resolve_feature(PARITY_WITH_MPI TRUE "MPI ${MPI_CXX_VERSION} found")
else()
  parity_resolve_feature(PARITY_WITH_MPI FALSE "MPI not found (Debian: libopenmpi-dev)")
endif()

# parity_find_beside_cuda(TARGET HEADER LIBRARY): the imported target TARGET
# for a library installed beside the CUDA toolkit (cuDNN, NCCL on our
# machines; the lent GPU machine takes PyTorch's copies at run time). Sets
# TARGET_FOUND and TARGET_LIBRARY.
function(parity_find_beside_cuda target header library)
  string(TOUPPER ${library} prefix)
  find_path(${prefix}_INCLUDE_DIR ${header} HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(${prefix}_LIBRARY ${library} HINTS ${CUDAToolkit_LIBRARY_DIR})
  set(${target}_FOUND FALSE PARENT_SCOPE)
  if(${prefix}_INCLUDE_DIR AND ${prefix}_LIBRARY)
    add_library(${target} INTERFACE IMPORTED GLOBAL)
    target_include_directories(${target} INTERFACE ${${prefix}_INCLUDE_DIR})
    target_link_libraries(${target} INTERFACE ${${prefix}_LIBRARY})
    set(${target}_FOUND TRUE PARENT_SCOPE)
    set(${target}_LIBRARY ${${prefix}_LIBRARY} PARENT_SCOPE)
  endif()
endfunction()

# The CUDA training backend also needs cuDNN.
set(PARITY_CUDA_BACKEND_ENABLED FALSE)
if(PARITY_WITH_CUDA_ENABLED)
  parity_find_beside_cuda(parity_cudnn cudnn.h cudnn)
  if(parity_cudnn_FOUND)
    set(PARITY_CUDA_BACKEND_ENABLED TRUE)
    set_property(GLOBAL APPEND PROPERTY PARITY_SUMMARY
      "  CUDA training backend (cuDNN ${parity_cudnn_LIBRARY}) and CUPTI collector")
  else()
    set_property(GLOBAL APPEND PROPERTY PARITY_SUMMARY
      "  CUPTI collector only: cuDNN not found, no CUDA training backend")
  endif()
endif()

# NCCL, for data parallel on GPU ranks (bootstrapped over MPI).
set(PARITY_NCCL_ENABLED FALSE)
if(PARITY_CUDA_BACKEND_ENABLED)
  parity_find_beside_cuda(parity_nccl nccl.h nccl)
  if(parity_nccl_FOUND)
    set(PARITY_NCCL_ENABLED TRUE)
    set_property(GLOBAL APPEND PROPERTY PARITY_SUMMARY
      "  NCCL data parallel (${parity_nccl_LIBRARY})")
  else()
    set_property(GLOBAL APPEND PROPERTY PARITY_SUMMARY
      "  no NCCL: GPU ranks cannot train data parallel")
  endif()
endif()
