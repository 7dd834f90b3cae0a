//! Derives for Sandpit's wire types that take every name from serde's own
//! attributes (`rename`, `rename_all`, `default`), read by
//! `serde_derive_internals` as serde's derive reads them, so a name on the
//! wire is written once, in the type.
//!
//! - `FromSource`: the browser's field-by-field reader (`sandpit::js::reader`),
//!   the same code its hand-written lists generated before.
//! - `WireName`: `wire_name()`, the name serde writes for an enum's variant.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use serde_derive_internals::ast::{Container, Data, Field, Style, Variant};
use serde_derive_internals::attr::{Default as FieldDefault, TagType};
use serde_derive_internals::{Ctxt, Derive};
use syn::{DeriveInput, Error, Ident};

/// `impl FromSource`: a struct reads each field under its serde name; an
/// enum of unit variants reads a variant's name; an enum whose variants
/// all hold data reads `{"variant": value}`, as serde's external tagging
/// writes it.
#[proc_macro_derive(FromSource, attributes(serde))]
pub fn derive_from_source(input: TokenStream) -> TokenStream {
    expand(input, Derive::Deserialize, from_source)
}

/// An inherent `wire_name(&self) -> &'static str` on an enum: the variant's
/// name as serde writes it.
#[proc_macro_derive(WireName, attributes(serde))]
pub fn derive_wire_name(input: TokenStream) -> TokenStream {
    expand(input, Derive::Serialize, wire_name)
}

/// Parses `input` as serde does and hands it to `generate`; errors become
/// compile errors.
fn expand(
    input: TokenStream,
    derive: Derive,
    generate: fn(&Container) -> Result<Tokens, Error>,
) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    let cx = Ctxt::new();
    let private = Ident::new("__private", Span::call_site());
    let container = Container::from_ast(&cx, &input, derive, &private);
    let generated = match (cx.check(), container) {
        (Ok(()), Some(container)) => generate(&container),
        (Err(error), _) => Err(error),
        (Ok(()), None) => Err(Error::new_spanned(&input, "not a struct or an enum")),
    };
    generated.unwrap_or_else(Error::into_compile_error).into()
}

fn from_source(container: &Container) -> Result<Tokens, Error> {
    if !matches!(container.attrs.tag(), TagType::External) {
        return Err(unsupported(container, "only externally tagged enums"));
    }
    if !container.generics.params.is_empty() {
        return Err(unsupported(container, "no generic types"));
    }
    let body = match &container.data {
        Data::Struct(_, fields) if container.attrs.transparent() => {
            let [field] = fields.as_slice() else {
                return Err(unsupported(container, "one field in a transparent struct"));
            };
            let member = &field.member;
            quote! {
                ::core::result::Result::Ok(Self {
                    #member: crate::js::reader::FromSource::read(source)?,
                })
            }
        }
        Data::Struct(Style::Struct, fields) => {
            let fields = read_fields(container, fields, quote!(source))?;
            quote!(::core::result::Result::Ok(Self { #(#fields),* }))
        }
        Data::Struct(..) => return Err(unsupported(container, "structs with named fields")),
        Data::Enum(variants) if variants.iter().all(|v| matches!(v.style, Style::Unit)) => {
            read_unit_variants(variants)
        }
        Data::Enum(variants) => read_tagged_variants(container, variants)?,
    };
    let ident = &container.ident;
    Ok(quote! {
        impl crate::js::reader::FromSource for #ident {
            fn read<S: crate::js::reader::Source>(source: S) -> ::core::result::Result<Self, S::Error> {
                #body
            }
        }
    })
}

/// `field: <read>` for each field of `fields`, read from `source`.
fn read_fields(
    container: &Container,
    fields: &[Field],
    source: Tokens,
) -> Result<Vec<Tokens>, Error> {
    fields
        .iter()
        .map(|field| {
            if field.attrs.skip_deserializing() || field.attrs.flatten() {
                return Err(unsupported(container, "no skipped or flattened fields"));
            }
            let member = &field.member;
            let name = field.attrs.name().deserialize_name();
            let read = match field.attrs.default() {
                FieldDefault::None => quote!(crate::js::reader::read_field(&#source, #name)?),
                FieldDefault::Default => quote! {
                    crate::js::reader::read_field_or(&#source, #name, ::core::default::Default::default)?
                },
                FieldDefault::Path(path) => {
                    quote!(crate::js::reader::read_field_or(&#source, #name, #path)?)
                }
            };
            Ok(quote!(#member: #read))
        })
        .collect()
}

/// An enum of unit variants: serde writes each as its name, a string.
fn read_unit_variants(variants: &[Variant]) -> Tokens {
    let names: Vec<_> = variants
        .iter()
        .map(|v| v.attrs.name().deserialize_name())
        .collect();
    let idents = variants.iter().map(|v| &v.ident);
    quote! {
        let name: ::std::string::String = source.deserialize()?;
        match name.as_str() {
            #(#names => ::core::result::Result::Ok(Self::#idents),)*
            _ => ::core::result::Result::Err(
                <S::Error as serde::de::Error>::unknown_variant(&name, &[#(#names),*]),
            ),
        }
    }
}

/// An enum whose every variant holds one value or named fields: an object
/// with one field, named for the variant.
fn read_tagged_variants(container: &Container, variants: &[Variant]) -> Result<Tokens, Error> {
    let mut arms = Vec::new();
    let mut names = Vec::new();
    for variant in variants {
        let ident = &variant.ident;
        let name = variant.attrs.name().deserialize_name();
        let read = match variant.style {
            Style::Newtype => quote!(crate::js::reader::FromSource::read(value).map(Self::#ident)),
            Style::Struct => {
                let fields = read_fields(container, &variant.fields, quote!(value))?;
                quote!((|| ::core::result::Result::Ok(Self::#ident { #(#fields),* }))())
            }
            Style::Unit | Style::Tuple => {
                return Err(unsupported(
                    container,
                    "variants that all hold one value or named fields, or are all units",
                ))
            }
        };
        arms.push(quote!(#name => #read,));
        names.push(name);
    }
    Ok(quote! {
        let (tag, value) = source.only_field()?;
        let read: ::core::result::Result<Self, S::Error> = match tag.as_str() {
            #(#arms)*
            _ => return ::core::result::Result::Err(
                <S::Error as serde::de::Error>::unknown_variant(&tag, &[#(#names),*]),
            ),
        };
        read.map_err(|error| crate::js::reader::in_field(&tag, error))
    })
}

fn wire_name(container: &Container) -> Result<Tokens, Error> {
    let Data::Enum(variants) = &container.data else {
        return Err(unsupported(container, "enums"));
    };
    let arms = variants.iter().map(|variant| {
        let ident = &variant.ident;
        let name = variant.attrs.name().serialize_name();
        let pattern = match variant.style {
            Style::Unit => quote!(Self::#ident),
            Style::Newtype | Style::Tuple => quote!(Self::#ident(..)),
            Style::Struct => quote!(Self::#ident { .. }),
        };
        quote!(#pattern => #name,)
    });
    let ident = &container.ident;
    let (impl_generics, type_generics, where_clause) = container.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics #ident #type_generics #where_clause {
            /// The variant's name on the wire, as serde writes it (`ok`, `timeout`, ...).
            pub fn wire_name(&self) -> &'static str {
                match self {
                    #(#arms)*
                }
            }
        }
    })
}

fn unsupported(container: &Container, what: &str) -> Error {
    Error::new_spanned(
        &container.original.ident,
        format!("this derive supports {what}"),
    )
}
