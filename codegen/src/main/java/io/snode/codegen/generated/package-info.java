/**
 * The package in which the classes generated for compiled layouts are defined, as hidden
 * classes of {@link io.snode.codegen.generated.Anchor}'s lookup. Nothing here is API.
 */
package io.snode.codegen.generated;
